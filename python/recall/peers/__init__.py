"""Talking between computers: the wire protocol and token, the client, peers, fan-out, merging.

`protocol` (the API version, a search on the wire) and `auth` (the token)
are shared with the daemon (`recall.serve`). A peer is a name (what
`--computer` takes), a URL and a token file. Results come back tagged with
their computer and are merged into one ranking here; nothing a peer returns
is ever stored (docs/serve.md).
"""
