"""Importers from the memory systems people use today (Mem0, basic-memory, Letta, Claude
Code): their exports planned as MEMORY.md entries and conversation turns
(`trinho.importers.rules`), written through the gate (`trinho.importers.store`)."""
