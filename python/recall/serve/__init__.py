"""`recall serve`: the HTTP peer endpoint (SPEC §6), its security, and the background worker.

`protocol` is what client and server share (the API version, the search
request on the wire); `auth` the token; `bounded` the limits on what a
connection may cost; `server` the HTTP machinery; `routes` the answers;
`worker` the reconciliation loop; `daemon` puts them together.
"""
