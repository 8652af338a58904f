--liquibase formatted sql

-- Issue 46: how a node's pool reaches PostgreSQL ('direct', or 'transaction' behind PgBouncer); null for an older node.

--changeset forgeflow:0021-node-database-pooling
ALTER TABLE nodes ADD COLUMN database_pooling text;
