#!/bin/sh
# compose.yaml's one-shot `secrets` service: creates each secret once, in the `secrets` volume,
# from the kernel's random source (32 bytes, hex: safe inside URLs and config files). Existing
# files are kept, so restarts and upgrades reuse them. Run as root; files are left readable by the
# postgres, redis and node users of the other containers, which are the only ones mounting the volume.
set -eu
dir="${TRAWL_SECRETS_DIR:-/secrets}"
mkdir -p "$dir"

new_secret() {
  node -e "process.stdout.write(require('node:crypto').randomBytes(32).toString('hex'))"
}

for name in admin_token postgres_password redis_password; do
  if [ ! -s "$dir/$name" ]; then
    new_secret > "$dir/$name.tmp"
    mv "$dir/$name.tmp" "$dir/$name"
    echo "created $name"
  fi
done
# Redis reads its password from a config file, so it never appears in a process list.
printf 'requirepass %s\n' "$(cat "$dir/redis_password")" > "$dir/redis.conf"
chmod 0644 "$dir"/admin_token "$dir"/postgres_password "$dir"/redis_password "$dir"/redis.conf
