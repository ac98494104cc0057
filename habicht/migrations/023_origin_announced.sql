-- Whether the owners were told that habicht created this file (issue 35). The running bot
-- tells them when it had to create its database; the start that created it may be killed
-- before their message is queued, so that is recorded here instead of kept in memory. A new
-- file is created in one transaction together with its `origin` row (`habicht.db`), the
-- bot's with `announced_at` NULL: every start that finds it so tells the owners and then
-- marks it (`Database.announced`; their message's dedupe key makes a start killed in between
-- harmless). Files dated before this migration were told by the start that created them.
ALTER TABLE origin ADD COLUMN announced_at REAL;
UPDATE origin SET announced_at = created_at;
