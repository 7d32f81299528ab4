"""The condensation gold set and its scorer: see README.md in this folder."""
