"""Importers from the memory systems people use today (Mem0, basic-memory, Claude Code):
their exports planned as MEMORY.md entries (`trinho.importers.rules`) and written through
the gate (`trinho.importers.store`)."""
