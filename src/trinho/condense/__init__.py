"""Weekly condensation of MEMORY.md: the pure gate, screening verdicts and held changes."""
