--liquibase formatted sql

-- Issue 37: how each node contains its shell jobs' processes (pid-namespace, process-group, none) and the OS user
-- they run as; null for a node that says nothing (an older node, or one without the shell executor).

--changeset forgeflow:0017-node-containment
ALTER TABLE nodes ADD COLUMN containment text;
ALTER TABLE nodes ADD COLUMN job_user text;
