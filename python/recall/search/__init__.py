"""Search over the mirrors: parse the query once, keyword ranking, typo retry, fusion.

`modes.run` is the entry point. Keyword search lives wholly here; the
`recall.semantic` package is imported only when vectors exist and are used.
"""
