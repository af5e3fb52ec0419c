"""`recall context`: what an agent's session-start and prompt-submit hooks inject.

`gather` collects the facts (the head of MEMORY.md, the project's recent
sessions, past excerpts matching the prompt) as lines, best first; `shape`
fits them to a token budget and to each agent's cap, in its hook's JSON.
"""
