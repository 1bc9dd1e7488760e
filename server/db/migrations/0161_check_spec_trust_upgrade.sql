-- Canaries that exist at upgrade were written when anyone who could write a canary could run
-- exec and reach loopback; refusing them now would break running installations without warning.
-- They are trusted as they stand ('server', via 'upgrade'); any later change needs an exec holder.
INSERT INTO lookout.check_spec_trust (spec_hash, trusted_by, via)
SELECT DISTINCT md5(spec::text), 'server', 'upgrade' FROM canaries WHERE deleted_at IS NULL AND spec IS NOT NULL
ON CONFLICT DO NOTHING;
