#!/bin/sh
# Install Debian's Chromium for the browser tests (tests/web, marker `browser`) when it is missing.
# Never `playwright install`: Playwright drives this system Chromium (/usr/bin/chromium).
# A CJK font is installed with it so screenshots show the Chinese game names instead of boxes.
set -eu
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
echo "installing Debian chromium for the browser tests (apt-get)..." >&2
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium fonts-wqy-zenhei
