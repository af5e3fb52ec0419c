"""`recall setup` and `recall hooks`: recall's hooks and MCP entry in each agent's own files.

`where` finds each agent's configuration; `commands` makes and recognises
recall's command lines; `jsonfile` and `tomlfile` edit settings files while
keeping their formatting; `entries` knows what recall adds to each agent;
`safewrite` writes without widening a file's mode; `state` keeps the
backups, what setup remembers and the lock that runs one setup at a time;
`apply` installs, uninstalls and reports, with a diff, a backup and
byte-for-byte restores.
"""
