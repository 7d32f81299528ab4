"""One owner's records behind one Protocol, whichever backend holds them (`protocol`)."""
