"""The agent tools: their definitions and the one door a call goes through (`service`), and
checking their arguments (`args`, pure)."""
