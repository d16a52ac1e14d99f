-- A secret may be bound to the hosts it is for (exact names or *.domain, checked by the
-- application): http_request refuses to send it anywhere else, even to another host on the
-- tenant's allow-list. Empty: any host on that list, as before. A constant default adds the
-- column without rewriting the table.
ALTER TABLE tenant_secrets
  ADD COLUMN allowed_hosts text[] NOT NULL DEFAULT '{}'
    CHECK (cardinality(allowed_hosts) <= 20);
