#!/usr/bin/env bash
# Installs backgroundd as a systemd service with its socket unit (dist/systemd), and starts it.
# Run it as yourself from a clone; for --system it uses sudo for the steps that need root.
#
# Usage: scripts/install-backgroundd.sh --system | --user [--prefix DIR] [--unit-dir DIR] [--from DIR] [--no-enable]
#   --system        one daemon for the machine, run by root (apps under uids of their own):
#                   binaries in /usr/local/bin, units in /etc/systemd/system
#   --user          one daemon for you, in your session: binaries in ~/.local/bin, units in
#                   ${XDG_CONFIG_HOME:-~/.config}/systemd/user
#   --prefix DIR    binaries in DIR/bin instead (the unit's ExecStart= names that path)
#   --unit-dir DIR  units in DIR instead
#   --from DIR      install backgroundd and bgctl already built in DIR (default: build them now
#                   with `swift build -c release`, several minutes the first time)
#   --no-enable     install the files only: no `systemctl daemon-reload`, no `enable --now`
# Exit status: 0 installed (and started), 64 usage, 1 a step failed (named on standard error).
# docs/systemd.md explains the units and what is tested.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { printf 'install-backgroundd: %s\n' "$1" >&2; exit "${2:-1}"; }
trap 'fail "this step failed: $BASH_COMMAND"' ERR
usage() { printf 'install-backgroundd: usage: %s (see the comment at the top of scripts/install-backgroundd.sh)\n' "$*" >&2; exit 64; }

scope="" prefix="" unit_dir="" from="" enable=1
while (($#)); do
    case "$1" in
        --system | --user) [[ -z "$scope" ]] || usage "give one of --system and --user"; scope="${1#--}" ;;
        --prefix | --unit-dir | --from)
            (($# >= 2)) || usage "$1 needs a directory"
            [[ "$2" == /* ]] || usage "$1: $2 is not an absolute path"
            case "$1" in --prefix) prefix="$2" ;; --unit-dir) unit_dir="$2" ;; --from) from="$2" ;; esac
            shift ;;
        --no-enable) enable=0 ;;
        *) usage "unknown argument '$1'" ;;
    esac
    shift
done
[[ -n "$scope" ]] || usage "give --system or --user"

if [[ "$scope" == system ]]; then
    prefix="${prefix:-/usr/local}"
    unit_dir="${unit_dir:-/etc/systemd/system}"
    systemctl=(systemctl)
else
    [[ -n "${HOME:-}" ]] || fail "HOME is not set" 64
    prefix="${prefix:-$HOME/.local}"
    unit_dir="${unit_dir:-${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user}"
    systemctl=(systemctl --user)
fi
# Root's steps: directly as root, else through sudo (for --system into the system's directories).
privileged=()
if [[ "$scope" == system && "$(id -u)" != 0 ]]; then privileged=(sudo); fi

if [[ -z "$from" ]]; then
    swift build -c release --product backgroundd
    swift build -c release --product bgctl
    from="$(swift build -c release --show-bin-path)"
fi
for binary in backgroundd bgctl; do
    [[ -x "$from/$binary" ]] || fail "$from/$binary: not built (run swift build, or give --from)" 66
done

"${privileged[@]}" install -d -m 0755 "$prefix/bin" "$unit_dir"
"${privileged[@]}" install -m 0755 "$from/backgroundd" "$from/bgctl" "$prefix/bin/"
staged="$(mktemp -d)"
trap 'rm -rf "$staged"' EXIT
sed "s|^ExecStart=.*|ExecStart=$prefix/bin/backgroundd|" "dist/systemd/$scope/backgroundd.service" \
    >"$staged/backgroundd.service"
cp "dist/systemd/$scope/backgroundd.socket" "$staged/backgroundd.socket"
"${privileged[@]}" install -m 0644 "$staged/backgroundd.service" "$staged/backgroundd.socket" "$unit_dir/"
printf 'installed %s/bin/backgroundd, %s/bin/bgctl, %s/backgroundd.service and %s/backgroundd.socket\n' \
    "$prefix" "$prefix" "$unit_dir" "$unit_dir"

if ((enable)); then
    "${privileged[@]}" "${systemctl[@]}" daemon-reload
    "${privileged[@]}" "${systemctl[@]}" enable backgroundd.socket backgroundd.service
    if "${systemctl[@]}" is-active --quiet backgroundd.service; then
        # Installed again: the new binary, on the same socket (connections wait in it meanwhile).
        "${privileged[@]}" "${systemctl[@]}" restart backgroundd.service
    else
        "${privileged[@]}" "${systemctl[@]}" start backgroundd.socket backgroundd.service
    fi
    "${privileged[@]}" "${systemctl[@]}" --no-pager status backgroundd.service | head -n 5 || true
fi
