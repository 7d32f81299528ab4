"""Conversations: the transcripts (`store`) and the agent loop that records them (`agent`)."""
