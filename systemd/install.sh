#!/bin/sh
# Install garden-scorer as a service on Raspberry Pi OS (run from the project checkout, as root):
#   sudo systemd/install.sh              # the service
#   sudo systemd/install.sh --kiosk pi   # and the TV kiosk for the desktop user 'pi'
set -eu

PREFIX=/opt/garden-scorer
SRC=$(cd "$(dirname "$0")/.." && pwd)
KIOSK_USER=
if [ "${1:-}" = "--kiosk" ]; then
    KIOSK_USER=${2:?usage: install.sh --kiosk USER}
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "run as root: sudo $0 $*" >&2
    exit 1
fi

# The camera stack comes from Raspberry Pi OS, not PyPI; the venv sees it through --system-site-packages.
apt-get install -y --no-install-recommends python3-venv python3-picamera2
if [ "${KIOSK_USER}" ]; then
    apt-get install -y --no-install-recommends chromium
fi

# Under /opt, not /home: ProtectHome= hides /home from the service.
mkdir -p "${PREFIX}"
cp "${SRC}/README.md" "${PREFIX}/README.md"
python3 -m venv --system-site-packages "${PREFIX}/venv"
"${PREFIX}/venv/bin/pip" install --quiet --upgrade pip
# Bookworm's picamera2 is built against its NumPy 1.24: keep the system NumPy and an OpenCV that accepts it.
# Trixie ships NumPy 2, so the newest OpenCV is fine there.
if python3 -c 'import numpy, sys; sys.exit(0 if int(numpy.__version__.split(".")[0]) < 2 else 1)'; then
    "${PREFIX}/venv/bin/pip" install --quiet "opencv-python-headless<4.12" "numpy<2" "${SRC}"
else
    "${PREFIX}/venv/bin/pip" install --quiet "${SRC}"
fi

install -m 0644 "${SRC}/systemd/garden-scorer.service" /etc/systemd/system/garden-scorer.service
if [ ! -e /etc/default/garden-scorer ]; then
    install -m 0644 "${SRC}/systemd/garden-scorer.default" /etc/default/garden-scorer
fi
systemctl daemon-reload
systemctl enable --now garden-scorer.service

if [ "${KIOSK_USER}" ]; then
    home=$(getent passwd "${KIOSK_USER}" | cut -d: -f6)
    mkdir -p "${home}/.config/labwc"
    autostart="${home}/.config/labwc/autostart"
    if [ ! -e "${autostart}" ] && [ -e /etc/xdg/labwc/autostart ]; then
        cp /etc/xdg/labwc/autostart "${autostart}"
    fi
    grep -v '^#' "${SRC}/systemd/kiosk-autostart" >> "${autostart}"
    chown -R "${KIOSK_USER}:" "${home}/.config/labwc"
    echo "TV kiosk: log in as ${KIOSK_USER} on the desktop (or reboot) to open the TV page."
fi

port=$(sed -n 's/^GARDEN_SCORER_PORT=//p' /etc/default/garden-scorer)
echo "garden-scorer is running: http://$(hostname -I | cut -d' ' -f1):${port:-8080}/ (logs: journalctl -u garden-scorer)"
