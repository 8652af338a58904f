CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, email text NOT NULL, cents bigint NOT NULL);
CREATE TABLE IF NOT EXISTS receipts (order_id text PRIMARY KEY, email text NOT NULL, sent_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS reports (id bigserial PRIMARY KEY, orders bigint NOT NULL, made_at timestamptz NOT NULL DEFAULT now());
