#!/usr/bin/env bash
# The e2e tests drive Debian's Chromium through playwright-core; test tools that download
# their own browser cannot reach their hosts here.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-chromium: /usr/bin/chromium is missing; install it as root: apt-get install -y chromium" >&2
  exit 1
fi
echo "ensure-chromium: installing Debian's chromium (apt-get)" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
