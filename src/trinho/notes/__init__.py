"""Daily notes: the note files (`store`) and the journal that keeps acknowledged notes through
writers that take no lock (`journal`)."""
