"""Other computers' daemons: the peer list in config, the HTTP client, fan-out and merging.

A peer is a name (what `--computer` takes), a URL and a token file. Results
come back tagged with their computer and are merged into one ranking here;
nothing a peer returns is ever stored (SPEC §6).
"""
