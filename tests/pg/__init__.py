"""The PostgreSQL backend's tests. A package, so that its conftest is `pg.conftest` and the
suite's own `conftest` stays the module that `from conftest import ...` finds."""
