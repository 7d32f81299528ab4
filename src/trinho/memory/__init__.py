"""MEMORY.md: the document (`format`, pure) and its one reader and writer (`store`)."""
