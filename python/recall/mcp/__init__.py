"""`recall mcp`: the agent's own tool, an MCP server over stdio.

`server` speaks the protocol (newline-delimited JSON-RPC 2.0, version
negotiation, errors); `tools` is the registry of what the agent may call;
`history` holds the tools over past sessions (search_history, show_session).
"""
