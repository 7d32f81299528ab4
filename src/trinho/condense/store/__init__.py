"""The condensation's files: run journals, MEMORY.md writes, the archive, what a run reads, the
shipped prompts."""
