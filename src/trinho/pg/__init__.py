"""The PostgreSQL backend: many owners' records in one database, each owner a tenant.

Beside the file workspace (the default, unchanged), not instead of it: the stores here keep
the file stores' promises for notes, MEMORY.md, facts and proposals, each write one
transaction, deciding with the same pure functions (`trinho.facts.rules`, the notes' and
proposals' parsing and formatting). Row-level security keeps each owner's rows to that owner
whatever the code above does. Needs the `postgres` extra (psycopg 3, its pool, yoyo); nothing
here is imported unless a database is configured. See docs/scale.md.
"""
