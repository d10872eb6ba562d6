"""The managed family's wire records, by result: artifact (with the arguments), graph, reconstruction, verification."""
