"""Privacy: secrets redacted before storage, excluded projects and sessions, real deletion."""
