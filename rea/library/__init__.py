"""The pure library behind `rea`'s public names: derived tools run as functions (no server, engine or IO)."""
