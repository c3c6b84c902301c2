#!/bin/sh
# Install garden-scorer as a service on Raspberry Pi OS (run from the project checkout, as root):
#   sudo systemd/install.sh                    # the service
#   sudo systemd/install.sh --kiosk pi         # and the TV kiosk for the desktop user 'pi'
#   sudo systemd/install.sh --tls --kiosk pi   # over HTTPS, with a self-signed certificate
#   sudo systemd/install.sh --mqtt mqtt://table-3@hall.local --table table-3   # one table of a hall (docs/hall.md)
#   sudo systemd/install.sh --hall             # this machine shows the hall, as a service (no table here)
# Run it again to update: /etc/default/garden-scorer, the certificate and the kiosk's token are kept.
set -eu

PREFIX=/opt/garden-scorer
# Secrets: readable by root (the kiosk's token also by the kiosk user's group). The service's throw-away user
# gets them as systemd credentials, which it finds in CREDENTIALS.
SECRETS=/etc/garden-scorer
CREDENTIALS=/run/credentials/garden-scorer.service
DEFAULTS=/etc/default/garden-scorer
DROPINS=/etc/systemd/system/garden-scorer.service.d
SRC=$(cd "$(dirname "$0")/.." && pwd)
USAGE="usage: sudo $0 [--tls] [--kiosk USER] [--mqtt URL --table NAME] [--hall]"
KIOSK_USER=
TLS=
MQTT=
TABLE=
HALL=
while [ $# -gt 0 ]; do
    case "$1" in
        --kiosk) KIOSK_USER=${2:?$USAGE}; shift 2 ;;
        --tls) TLS=yes; shift ;;
        --mqtt) MQTT=${2:?$USAGE}; shift 2 ;;
        --table) TABLE=${2:?$USAGE}; shift 2 ;;
        --hall) HALL=yes; shift ;;
        *) echo "${USAGE}" >&2; exit 2 ;;
    esac
done

if [ "$(id -u)" -ne 0 ]; then
    echo "run as root: ${USAGE}" >&2
    exit 1
fi
if { [ "${MQTT}" ] && [ -z "${TABLE}" ]; } || { [ -z "${MQTT}" ] && [ "${TABLE}" ]; }; then
    echo "a table on a broker needs both --mqtt URL and --table NAME: ${USAGE}" >&2
    exit 2
fi
if [ "${KIOSK_USER}" ] && ! id "${KIOSK_USER}" >/dev/null 2>&1; then
    echo "no user ${KIOSK_USER}: give the desktop user whose login shows the TV" >&2
    exit 2
fi

# Sets NAME=VALUE in the settings (every setting has its line: see below).
set_default() {
    sed -i "s|^$1=.*|$1=$2|" "${DEFAULTS}"
}

# The camera stack comes from Raspberry Pi OS, not PyPI; the venv sees it through --system-site-packages.
if [ "${HALL}" ]; then
    # The hall's machine needs no camera (and may be no Raspberry Pi).
    apt-get install -y --no-install-recommends python3-venv
else
    apt-get install -y --no-install-recommends python3-venv python3-picamera2
fi
if [ "${TLS}" ]; then
    apt-get install -y --no-install-recommends openssl
fi
if [ "${KIOSK_USER}" ]; then
    # certutil: the kiosk's Chromium is told to trust the self-signed certificate.
    apt-get install -y --no-install-recommends chromium libnss3-tools
fi

# Under /opt, not /home: ProtectHome= hides /home from the service.
mkdir -p "${PREFIX}"
cp "${SRC}/README.md" "${PREFIX}/README.md"
python3 -m venv --system-site-packages "${PREFIX}/venv"
"${PREFIX}/venv/bin/pip" install --quiet --upgrade pip
# The MQTT client only for a table on a broker (this run's --mqtt, or an earlier install's setting).
PACKAGE="${SRC}"
if [ "${MQTT}" ] || [ "${HALL}" ] || grep -q '^GARDEN_SCORER_MQTT=.' "${DEFAULTS}" 2>/dev/null; then
    PACKAGE="${SRC}[mqtt]"
fi
# Bookworm's picamera2 is built against its NumPy 1.24: keep the system NumPy and an OpenCV that accepts it.
# Trixie ships NumPy 2, so the newest OpenCV is fine there.
if python3 -c 'import numpy, sys; sys.exit(0 if int(numpy.__version__.split(".")[0]) < 2 else 1)'; then
    "${PREFIX}/venv/bin/pip" install --quiet "opencv-python-headless<4.12" "numpy<2" "${PACKAGE}"
else
    "${PREFIX}/venv/bin/pip" install --quiet "${PACKAGE}"
fi

install -m 0644 "${SRC}/systemd/garden-scorer.service" /etc/systemd/system/garden-scorer.service
if [ ! -e "${DEFAULTS}" ]; then
    install -m 0644 "${SRC}/systemd/garden-scorer.default" "${DEFAULTS}"
fi
# Settings added since an older install, empty as shipped (see garden-scorer.default for what they do).
for name in GARDEN_SCORER_ALLOWED_HOSTS GARDEN_SCORER_TLS_CERT GARDEN_SCORER_TLS_KEY GARDEN_SCORER_MQTT \
    GARDEN_SCORER_TABLE; do
    grep -q "^${name}=" "${DEFAULTS}" || echo "${name}=" >> "${DEFAULTS}"
done
install -d -m 0755 "${SECRETS}"

if [ "${TLS}" ]; then
    if [ ! -s "${SECRETS}/tls.key" ]; then
        host=$(hostname)
        names="DNS:${host}.local,DNS:${host},DNS:localhost,IP:127.0.0.1"
        for address in $(hostname -I); do
            names="${names},IP:${address}"
        done
        # Self-signed for ten years, a server's certificate (not a CA's), for every name phones and the
        # kiosk use; phones warn once and remember the exception.
        (umask 077 && openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=${host}.local" \
            -addext "subjectAltName=${names}" -addext "basicConstraints=critical,CA:FALSE" \
            -addext "extendedKeyUsage=serverAuth" -keyout "${SECRETS}/tls.key" -out "${SECRETS}/tls.crt")
        chmod 0644 "${SECRETS}/tls.crt"
    fi
    install -D -m 0644 "${SRC}/systemd/tls.conf" "${DROPINS}/tls.conf"
    set_default GARDEN_SCORER_TLS_CERT "${CREDENTIALS}/tls-cert"
    set_default GARDEN_SCORER_TLS_KEY "${CREDENTIALS}/tls-key"
fi

if [ "${KIOSK_USER}" ]; then
    token="${SECRETS}/kiosk-token"
    if [ ! -s "${token}" ]; then
        (umask 077 && python3 -c 'import secrets; print(secrets.token_urlsafe(24))' > "${token}")
    fi
    # The kiosk's browser reads it when its user logs in (kiosk-autostart).
    chgrp "$(id -gn "${KIOSK_USER}")" "${token}"
    chmod 0640 "${token}"
    install -D -m 0644 "${SRC}/systemd/kiosk-token.conf" "${DROPINS}/kiosk-token.conf"
fi

if [ "${MQTT}" ]; then
    set_default GARDEN_SCORER_MQTT "${MQTT}"
    set_default GARDEN_SCORER_TABLE "${TABLE}"
fi
# The broker's password, when there is one: handed to the service as a credential (mqtt.conf).
if [ -s "${SECRETS}/mqtt-password" ]; then
    chmod 0600 "${SECRETS}/mqtt-password"
    install -D -m 0644 "${SRC}/systemd/mqtt.conf" "${DROPINS}/mqtt.conf"
elif [ "${MQTT}" ] && echo "${MQTT}" | grep -q '@'; then
    echo "The broker's user needs its password: write it (alone, on one line) to ${SECRETS}/mqtt-password," >&2
    echo "  sudo sh -c 'umask 077; cat > ${SECRETS}/mqtt-password'" >&2
    echo "then run this again." >&2
fi

if [ "${HALL}" ]; then
    install -m 0644 "${SRC}/systemd/garden-scorer-hall.service" /etc/systemd/system/garden-scorer-hall.service
    if [ ! -e /etc/default/garden-scorer-hall ]; then
        install -m 0644 "${SRC}/systemd/garden-scorer-hall.default" /etc/default/garden-scorer-hall
    fi
    if [ ! -s "${SECRETS}/hall-password" ]; then
        echo "The hall's broker user needs its password: write it (alone, on one line) to ${SECRETS}/hall-password," >&2
        echo "  sudo sh -c 'umask 077; cat > ${SECRETS}/hall-password'" >&2
        echo "then: sudo systemctl restart garden-scorer-hall" >&2
    fi
fi

systemctl daemon-reload
if [ -z "${HALL}" ]; then
    systemctl enable garden-scorer.service
    # Restarted, not only started: a reinstall's new code, unit and settings take effect now.
    systemctl restart garden-scorer.service
else
    # The hall's machine: the hall alone (a table's scorer is installed without --hall).
    systemctl enable garden-scorer-hall.service
    if [ -s "${SECRETS}/hall-password" ]; then
        chmod 0600 "${SECRETS}/hall-password"
        systemctl restart garden-scorer-hall.service
    fi
fi

port=$(sed -n 's/^GARDEN_SCORER_PORT=//p' "${DEFAULTS}")
scheme=http
if [ "$(sed -n 's/^GARDEN_SCORER_TLS_CERT=//p' "${DEFAULTS}")" ]; then
    scheme=https
fi

if [ "${KIOSK_USER}" ]; then
    home=$(getent passwd "${KIOSK_USER}" | cut -d: -f6)
    mkdir -p "${home}/.config/labwc"
    autostart="${home}/.config/labwc/autostart"
    if [ ! -e "${autostart}" ] && [ -e /etc/xdg/labwc/autostart ]; then
        cp /etc/xdg/labwc/autostart "${autostart}"
    fi
    touch "${autostart}"
    # The lines of an earlier install go (older ones opened /tv directly); the kiosk's, with this scheme
    # and port, come in their place.
    { grep -v -e '# garden-scorer kiosk$' -e '127\.0\.0\.1:[0-9]*/tv &$' "${autostart}" || true; } \
        > "${autostart}.new"
    grep -v '^#' "${SRC}/systemd/kiosk-autostart" \
        | sed "s|http://127.0.0.1:8080/|${scheme}://127.0.0.1:${port:-8080}/|" >> "${autostart}.new"
    mv "${autostart}.new" "${autostart}"
    chown -R "${KIOSK_USER}:" "${home}/.config/labwc"
    if [ "${scheme}" = https ] && [ -s "${SECRETS}/tls.crt" ]; then
        # Chromium trusts what the user's NSS database trusts: this certificate, as the server's own (P).
        runuser -u "${KIOSK_USER}" -- sh -c '
            db="${HOME}/.pki/nssdb"
            mkdir -p "${db}"
            [ -e "${db}/cert9.db" ] || certutil -d "sql:${db}" -N --empty-password
            certutil -d "sql:${db}" -D -n garden-scorer 2>/dev/null || true
            certutil -d "sql:${db}" -A -t "P,," -n garden-scorer -i "$1"' sh "${SECRETS}/tls.crt"
    fi
    echo "TV kiosk: log in as ${KIOSK_USER} on the desktop (or reboot) to open the TV page."
fi

address=$(hostname -I | cut -d' ' -f1)
if [ "${HALL}" ]; then
    port=$(sed -n 's/^GARDEN_SCORER_HALL_PORT=//p' /etc/default/garden-scorer-hall)
    echo "The hall: http://$(hostname).local:${port:-8090}/ or http://${address}:${port:-8090}/ on the big screen"
    echo "Its log: journalctl -u garden-scorer-hall"
else
    echo "garden-scorer is running: ${scheme}://$(hostname).local:${port:-8080}/ or ${scheme}://${address}:${port:-8080}/"
    echo "Its log: journalctl -u garden-scorer"
fi
