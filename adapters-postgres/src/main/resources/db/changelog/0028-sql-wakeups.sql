--liquibase formatted sql

-- Issue 40: enqueue() without a NOTIFY while nodes watch for SQL enqueues (db/functions/forgeflow_sql_wakeups.sql).
-- PostgreSQL serialises the commits of notifying transactions, so every application transaction that enqueued waited
-- for the one before it. Both are sequences because a sequence changes outside any transaction: a node's promise and
-- an enqueue's silence are seen at once, by everyone, committed or not.
-- forgeflow_sql_watch: until when (epoch ms, the database's clock) a node promises to look for new runs every few ms.
-- forgeflow_sql_silent: counts the enqueues that sent no NOTIFY.

--changeset forgeflow:0028-sql-wakeups
CREATE SEQUENCE forgeflow_sql_watch AS bigint MINVALUE 0 START WITH 0;
CREATE SEQUENCE forgeflow_sql_silent AS bigint MINVALUE 0 START WITH 0;
--rollback DROP SEQUENCE forgeflow_sql_silent; DROP SEQUENCE forgeflow_sql_watch;
