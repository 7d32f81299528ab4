"""The MCP server (`server`)."""
