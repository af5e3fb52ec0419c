"""`recall serve`: the HTTP peer endpoint (docs/serve.md), its limits, and the background worker.

`bounded` is what a connection may cost; `server` the HTTP machinery and
its checks; `routes` the answers (the CLI's own search and show); `worker`
the reconciliation loop; `daemon` puts them together. The wire format and
the token it shares with clients live in `recall.peers` (`protocol`, `auth`).
"""
