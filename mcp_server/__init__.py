"""ume's MCP server: the tools (``tools``), the SDK server (``server``) and /mcp (``http``)."""
