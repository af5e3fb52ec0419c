"""`recall context`: what an agent's session-start and prompt-submit hooks inject.

`gather` collects the facts (the head of MEMORY.md, the project's recent
sessions, past excerpts answering the prompt) as lines, best first;
`relevance` says whether a prompt has anything to look up and whether an
excerpt covers it (context helps or stays silent); `shape`
fits them to a token budget and to each agent's cap, in its hook's JSON.
"""
