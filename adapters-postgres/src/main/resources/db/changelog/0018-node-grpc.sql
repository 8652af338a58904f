--liquibase formatted sql

-- Issue 41: the address a node serves the gRPC API on (host:port); null for a node without gRPC (or an older one).

--changeset forgeflow:0018-node-grpc
ALTER TABLE nodes ADD COLUMN grpc_address text;
