"""OpenClaw workspaces: its machine lines in markdown (`markers`, pure) and the files it names
(`files`)."""
