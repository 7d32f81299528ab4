-- One Telegram bot for many owners. Each owner may have one Telegram user id (`trinho owners
-- telegram ID USER_ID`), unique across owners: a message or a button press from that user is
-- that owner's, from anyone else a stranger's. The bot finds the owner from the user id before
-- it knows whose the update is, in the registry, which is the operator's (the bot runs with
-- the operator's role, as the workers do; the application role is granted nothing here).
--
-- `telegram_bots` is the registry's too: where each bot's polling stands (the offset past the
-- last update it recorded, by the bot's id), so a restart asks Telegram for what came after.
-- It holds no owner's memory (an owner's messages are in their own `inbox_events`), so it has
-- no owner_id: like `owners`, a table the whole deployment shares (with Citus, a reference
-- table).
ALTER TABLE owners ADD COLUMN telegram_user_id bigint UNIQUE CHECK (telegram_user_id > 0);

CREATE TABLE telegram_bots (
    bot_id bigint PRIMARY KEY,
    next_offset bigint NOT NULL
);
