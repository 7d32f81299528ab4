"""`trinho demo`: a week replayed through the real parts (`run`)."""
