"""The session family's wire records: vocabulary, arguments, status (binary_session), results, bundles."""
