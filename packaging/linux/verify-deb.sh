#!/usr/bin/env bash
# Install, run and remove the tutor-app .deb on a clean Debian 12 (bookworm) chroot,
# the way a user would, and print PASS/FAIL per check.
#
#   sudo bash packaging/linux/verify-deb.sh dist/tutor-app_*.deb [CHROOT_DIR]
#
# CHROOT_DIR: a minbase bookworm is debootstrapped there, or reused when it already
# holds one (reruns then take minutes; leftovers of a previous run are removed first).
# Without it a fresh one is made under /tmp and deleted at the end (KEEP_CHROOT=1 keeps it).
# Environment: SCREENSHOT (default /tmp/deb-gui.png), LOG_DIR (default: a new folder
# under /tmp), MIRROR (default: the host apt's Debian mirror, else deb.debian.org).
# Needs root, network access to a Debian mirror and about 6 GB of disk.
# Exit status: 0 when every check passed, 1 otherwise, 2 on usage errors.
set -euo pipefail

usage() { echo "usage: sudo bash $0 path/to/tutor-app_VERSION_ARCH.deb [CHROOT_DIR]" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
[[ $(id -u) -eq 0 ]] || { echo "verify-deb: run as root (sudo): it debootstraps and mounts" >&2; exit 2; }
DEB=$(readlink -f "$1")
[[ -f $DEB && $DEB == *.deb ]] || { echo "verify-deb: not a .deb file: $1" >&2; exit 2; }
DEB_NAME=$(basename "$DEB")

SUITE=bookworm
USER_NAME=learner
USER_HOME=/home/$USER_NAME
SCREENSHOT=${SCREENSHOT:-/tmp/deb-gui.png}
LOG_DIR=${LOG_DIR:-$(mktemp -d /tmp/verify-deb-logs.XXXXXX)}
mkdir -p "$LOG_DIR"
# Test tools only (not app dependencies); installed after the package and its Depends,
# without recommends, so they cannot hide a missing dependency of the package. Xvfb
# -fbdir gives the screenshot: xwd (x11-apps) or imagemagick would pull in fontconfig
# and fonts, which the package itself must bring or the desktop must have.
# pulseaudio, pulseaudio-utils and libasound2-plugins (ALSA's pulse plugin, which the
# bundle's PortAudio reaches through ALSA) make the virtual sound card of the spoken call.
TEST_TOOLS=(xvfb xauth xdotool netpbm desktop-file-utils pulseaudio pulseaudio-utils libasound2-plugins)
# Real human speech with a reference transcript: the project's shared speech clips
# (../shared/data/speech next to the checkout); SPEECH_DIR overrides. A clip made with
# 'tutor-app speak' stands in when they are missing.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SPEECH_DIR=${SPEECH_DIR:-$HERE/../../../shared/data/speech}
SPEECH_CLIP=pocketsphinx_librivox_sense_and_sensibility_01_austen_64kb-0870.wav
SPEECH_WORDS=(john dashwood leisure consider prudently power)

BASE_LIST=var/lib/verify-deb-base-packages.txt   # in the chroot: what debootstrap installed
if [[ $# -eq 2 ]]; then
    ROOT=$(readlink -m "$2"); CREATED_ROOT=0
    mkdir -p "$ROOT"
else
    ROOT=$(mktemp -d /tmp/verify-deb-chroot.XXXXXX); CREATED_ROOT=1
fi
chmod 755 "$ROOT"   # it becomes /: mktemp's 0700 would lock the non-root user out

START=$(date +%s)
RESULTS=()
FAILED=0
MOUNTED=()

log() { printf '\n== %s\n' "$*"; }
record() {  # record STATUS DESCRIPTION
    RESULTS+=("$(printf '%-4s  %s' "$1" "$2")")
    [[ $1 == PASS || $1 == INFO ]] || FAILED=1
    printf -- '-> %s: %s\n' "$1" "$2"
}
check() {  # check DESCRIPTION COMMAND...: PASS when COMMAND exits 0
    local desc=$1; shift
    if "$@"; then record PASS "$desc"; return 0; fi
    record FAIL "$desc"; return 1
}
in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive HOME=/root "$@"; }
# As the non-root user, with a clean login-like environment; extra NAME=VALUE args go to env.
as_user() { chroot "$ROOT" /usr/sbin/runuser -u "$USER_NAME" -- /usr/bin/env -i HOME="$USER_HOME" \
    USER="$USER_NAME" LOGNAME="$USER_NAME" SHELL=/bin/bash PATH=/usr/local/bin:/usr/bin:/bin \
    LANG=C.UTF-8 "$@"; }
apt_in_root() { in_root apt-get -o Dpkg::Use-Pty=0 -q "$@"; }

# ---------------------------------------------------------------- cleanup (always)
chroot_pids() {  # processes whose root is the chroot (started by this script)
    local p
    for p in /proc/[0-9]*; do
        [[ $(readlink "$p/root" 2>/dev/null) == "$ROOT" ]] && echo "${p#/proc/}"
    done
    return 0
}
cleanup() {
    local rc=$? pids m
    set +e
    pids=$(chroot_pids)
    if [[ -n $pids ]]; then kill -TERM $pids 2>/dev/null; sleep 2; pids=$(chroot_pids); [[ -n $pids ]] && kill -KILL $pids 2>/dev/null; sleep 1; fi
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
        m=${MOUNTED[i]}
        umount "$m" 2>/dev/null || umount -l "$m" || echo "verify-deb: could not unmount $m" >&2
    done
    if grep -q " $ROOT/" /proc/mounts; then
        echo "verify-deb: still mounted under $ROOT; not deleting it" >&2
    elif [[ $CREATED_ROOT == 1 && ${KEEP_CHROOT:-0} != 1 ]]; then
        rm -rf --one-file-system "$ROOT"
    else
        echo "chroot kept: $ROOT"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bind() {  # bind SRC DEST (DEST inside the chroot)
    mkdir -p "$2"
    mount --bind "$1" "$2" && MOUNTED+=("$2")
}

host_mirror() {  # the host apt's Debian mirror for the main suite
    local files=() f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do [[ -f $f ]] && files+=("$f"); done
    if [[ ${#files[@]} -gt 0 ]]; then
        # one-line format: deb [opts] URI SUITE COMPONENTS...
        sed -E 's/\[[^]]*\]//' "${files[@]}" |
            awk -v s="$SUITE" '$1 == "deb" && $3 == s && $2 ~ /^https?:/ { print $2; exit }'
    fi
    files=()
    for f in /etc/apt/sources.list.d/*.sources; do [[ -f $f ]] && files+=("$f"); done
    if [[ ${#files[@]} -gt 0 ]]; then
        # deb822 format: a stanza whose Suites has SUITE
        awk -v s="$SUITE" 'BEGIN { RS = ""; FS = "\n" }
            { uri = ""; ok = 0; deb = 0
              for (i = 1; i <= NF; i++) {
                  if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); uri = a[2] }
                  if ($i ~ /^Suites:/) { n = split($i, b, /[ \t]+/); for (j = 2; j <= n; j++) if (b[j] == s) ok = 1 }
                  if ($i ~ /^Types:.*(^|[ \t])deb([ \t]|$)/) deb = 1 } 
              if (ok && deb && uri ~ /^https?:/) { print uri; exit } }' "${files[@]}"
    fi
}

# ---------------------------------------------------------------- 1. debootstrap
log "1. clean Debian $SUITE (minbase) in $ROOT"
MIRROR=${MIRROR:-$(host_mirror | head -n 1)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
echo "mirror: $MIRROR"
t0=$(date +%s)
if [[ -f $ROOT/etc/debian_version ]]; then
    echo "reusing the existing chroot (Debian $(cat "$ROOT/etc/debian_version"))"
    STEP1=PASS
else
    if ! command -v debootstrap >/dev/null; then
        apt-get update -q && apt-get install -y -q debootstrap
    fi
    if debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR" >"$LOG_DIR/debootstrap.log" 2>&1; then
        STEP1=PASS
        chroot "$ROOT" dpkg-query -W -f '${Package}\n' | sort >"$ROOT/$BASE_LIST"
    else
        tail -n 20 "$LOG_DIR/debootstrap.log"; STEP1=FAIL
    fi
fi
record "$STEP1" "1. debootstrap --variant=minbase $SUITE ($(( $(date +%s) - t0 )) s)"
[[ $STEP1 == PASS ]] || { echo "cannot continue without the chroot"; exit 1; }

# ---------------------------------------------------------------- 2. mounts
log "2. mount /proc, /sys, /dev"
mkdir -p "$ROOT/proc" && mount -t proc proc "$ROOT/proc" && MOUNTED+=("$ROOT/proc")
bind /sys "$ROOT/sys"
bind /dev "$ROOT/dev"
bind /dev/pts "$ROOT/dev/pts"
[[ -d /dev/shm ]] && bind /dev/shm "$ROOT/dev/shm"   # POSIX semaphores (Python multiprocessing)
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
# no daemons may start inside the chroot
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"; chmod 755 "$ROOT/usr/sbin/policy-rc.d"
check "2. /proc, /sys, /dev mounted in the chroot (unmounted on exit)" \
    test -e "$ROOT/proc/self/status" -a -e "$ROOT/dev/null" -a -d "$ROOT/sys/kernel" || exit 1

# Leftovers of an earlier run in a reused chroot: start again from the clean state.
in_root dpkg --configure -a >/dev/null 2>&1 || true   # after an interrupted run
if in_root dpkg-query -W -f '${Status}' tutor-app 2>/dev/null | grep -q installed; then
    echo "removing tutor-app left by an earlier run"; apt_in_root purge -y tutor-app >/dev/null
fi
if [[ -f $ROOT/$BASE_LIST ]]; then   # everything installed after debootstrap goes
    extra=$(in_root dpkg-query -W -f '${Package}\n' | sort | comm -13 "$ROOT/$BASE_LIST" - | tr '\n' ' ')
else                                 # a chroot this script did not make: at least the test tools
    extra=$(in_root dpkg-query -W -f '${Package} ${Status}\n' "${TEST_TOOLS[@]}" 2>/dev/null |
        awk '/ installed$/ { printf "%s ", $1 }' || true)
fi
if [[ -n ${extra// /} ]]; then
    echo "removing packages left by an earlier run: $extra"
    # shellcheck disable=SC2086
    apt_in_root purge -y $extra >/dev/null
fi
apt_in_root autoremove --purge -y >/dev/null
if in_root id "$USER_NAME" >/dev/null 2>&1; then in_root userdel -r "$USER_NAME" 2>/dev/null || true; fi

# ---------------------------------------------------------------- 3. apt install ./deb
log "3. apt-get install ./$DEB_NAME (Depends from $MIRROR)"
t0=$(date +%s)
apt_in_root update >"$LOG_DIR/apt-update.log" 2>&1 || { tail "$LOG_DIR/apt-update.log"; }
in_root dpkg-query -W -f '${Package}\n' | sort >"$LOG_DIR/packages-before.txt"
rm -f "$ROOT/tmp/$DEB_NAME"
ln "$DEB" "$ROOT/tmp/$DEB_NAME" 2>/dev/null || cp "$DEB" "$ROOT/tmp/$DEB_NAME"
chmod 644 "$ROOT/tmp/$DEB_NAME"
if in_root sh -c "cd /tmp && apt-get -o Dpkg::Use-Pty=0 -q install -y ./$DEB_NAME" >"$LOG_DIR/apt-install.log" 2>&1; then
    STEP3=PASS
else
    STEP3=FAIL; tail -n 30 "$LOG_DIR/apt-install.log"
fi
rm -f "$ROOT/tmp/$DEB_NAME"
in_root dpkg-query -W -f '${Package}\n' | sort >"$LOG_DIR/packages-after.txt"
comm -13 "$LOG_DIR/packages-before.txt" "$LOG_DIR/packages-after.txt" | grep -vx tutor-app >"$LOG_DIR/pulled-in.txt" || true
echo "Depends: $(in_root dpkg-query -W -f '${Depends}' tutor-app 2>/dev/null || echo '?')"
echo "apt pulled in $(wc -l <"$LOG_DIR/pulled-in.txt") packages for them:"
tr '\n' ' ' <"$LOG_DIR/pulled-in.txt" | fold -s -w 100; echo
record "$STEP3" "3. apt-get install ./$DEB_NAME resolved its Depends ($(wc -l <"$LOG_DIR/pulled-in.txt") packages pulled in, $(( $(date +%s) - t0 )) s)"
[[ $STEP3 == PASS ]] || { echo "cannot continue without the package"; exit 1; }

# The Qt xcb platform plugin and PortAudio must find all their libraries now, before
# any test tool is installed. The bundle's bootloader puts its _internal/ folder on
# LD_LIBRARY_PATH, so ldd gets the same.
QXCB=$(cd "$ROOT" && find opt/tutor-app -name libqxcb.so -print -quit)
BUNDLE_LIBS=$(cd "$ROOT" && find opt/tutor-app -maxdepth 2 -type d -name _internal -print -quit)
missing_libs() { in_root LD_LIBRARY_PATH="/$BUNDLE_LIBS" ldd "/$QXCB" | grep 'not found' || true; }
if [[ -n $QXCB ]]; then
    missing=$(missing_libs)
    [[ -z $missing ]] || echo "$missing"
    check "3. every library of the Qt xcb plugin is found (ldd /$QXCB)" test -z "$missing" || true
else
    record FAIL "3. Qt xcb plugin libqxcb.so not found in /opt/tutor-app"
fi
check "3. PortAudio is available (libportaudio.so.2)" \
    sh -c "chroot '$ROOT' ldconfig -p | grep -q libportaudio.so.2 || find '$ROOT/opt/tutor-app' -name 'libportaudio.so.2*' | grep -q ." || true

# Korean text needs a CJK font (Depends: fonts-noto-cjk); fc-list comes with fontconfig,
# which the package does not need, so the font file is looked for when it is absent.
check "3. a font with Korean glyphs is installed (fonts-noto-cjk)" \
    sh -c "chroot '$ROOT' dpkg-query -W -f '\${Status}' fonts-noto-cjk | grep -q 'install ok installed' &&
           { chroot '$ROOT' sh -c 'command -v fc-list' >/dev/null && chroot '$ROOT' fc-list :lang=ko | grep -q . ||
             find '$ROOT/usr/share/fonts' -name 'NotoSansCJK*' | grep -q .; }" || true

# ---------------------------------------------------------------- 4. use it as a user
log "4. run it as the non-root user '$USER_NAME'"
in_root useradd -m -s /bin/bash "$USER_NAME"
mkdir -p "$ROOT$USER_HOME/clips"
if [[ -f $SPEECH_DIR/$SPEECH_CLIP ]]; then
    cp "$SPEECH_DIR/$SPEECH_CLIP" "$ROOT$USER_HOME/clips/"
else
    echo "no $SPEECH_CLIP in $SPEECH_DIR (set SPEECH_DIR): transcribing a clip from 'tutor-app speak'"
    SPEECH_CLIP=spoken.wav SPEECH_WORDS=(go meters)
fi
in_root chown -R "$USER_NAME:$USER_NAME" "$USER_HOME/clips"

run_logged() {  # run_logged NAME TIMEOUT CMD...: as the user, output to LOG_DIR/NAME.log and the console
    local name=$1 secs=$2; shift 2
    local rc=0
    echo "\$ $*"
    as_user timeout "$secs" "$@" >"$LOG_DIR/$name.log" 2>"$LOG_DIR/$name.err" || rc=$?
    sed -e 's/^/    /' "$LOG_DIR/$name.log" | head -n 40
    if [[ $rc -ne 0 ]]; then echo "    exit $rc; stderr:"; sed -e 's/^/    /' "$LOG_DIR/$name.err" | tail -n 20; fi
    return "$rc"
}

check "4. tutor-app --help exits 0" run_logged help 120 tutor-app --help || true

check "4. tutor-app models status exits 0" run_logged models 300 tutor-app models status || true
defaults=$(grep -c '^\*[a-z0-9]' "$LOG_DIR/models.log" || true)
defaults_missing=$(grep '^\*[a-z0-9]' "$LOG_DIR/models.log" | grep -v ' installed ' || true)
[[ -z $defaults_missing ]] || echo "not installed: $defaults_missing"
check "4. models status: the $defaults default models show as installed" \
    test "$defaults" -ge 5 -a -z "$defaults_missing" || true
# They must come from the read-only bundle in /opt, not from copies in the user's folder.
BUNDLED_MODELS=$(cd "$ROOT" && find opt/tutor-app -name models.toml -path '*/models/*' -printf '%h\n' -quit)
USER_MODELS=$(sed -n 's/^models folder: //p' "$LOG_DIR/models.log")
user_models_kib=$(du -sk "$ROOT${USER_MODELS:-/nonexistent}" 2>/dev/null | cut -f1 || true)
echo "bundled models: /$BUNDLED_MODELS ($(du -sh "$ROOT/$BUNDLED_MODELS" 2>/dev/null | cut -f1));" \
     "user's models folder: ${USER_MODELS:-?} (${user_models_kib:-0} KiB)"
check "4. models status: the defaults are read from /opt/tutor-app (none copied to the user's folder)" \
    test -n "$BUNDLED_MODELS" -a "$defaults" -ge 5 -a -z "$defaults_missing" -a "${user_models_kib:-0}" -lt 1024 || true

if as_user tutor-app --help | grep -qw doctor; then
    # doctor exits 0 with [!!] notes for what a chroot lacks (microphone, speaker, keyring)
    check "4. tutor-app doctor exits 0" run_logged doctor 300 tutor-app doctor || true
    check "4. doctor: every default model OK" \
        sh -c "! grep -E '^\[[^O].*\] +models' '$LOG_DIR/doctor.log'" || true
fi

check "4. tutor-app memory add \"I love lattes\"" run_logged memory-add 300 tutor-app memory add "I love lattes" || true
check "4. tutor-app memory search \"what coffee do I like\" --json exits 0" \
    run_logged memory-search 300 tutor-app memory search "what coffee do I like" --json || true
check "4. memory search finds \"I love lattes\"" \
    grep -q '"hits": \[{[^]]*"text": "I love lattes"' "$LOG_DIR/memory-search.log" || true
DATA_DIR=$USER_HOME/.local/share/tutor-app
check "4. memories live in the user's default data dir ~/.local/share/tutor-app" \
    test -d "$ROOT$DATA_DIR" || true

if [[ $SPEECH_CLIP == spoken.wav ]]; then
    check "4. tutor-app speak makes a WAV" run_logged speak 300 \
        tutor-app speak "Go forward ten meters." --output "$USER_HOME/clips/spoken.wav" || true
fi
check "4. tutor-app transcribe $SPEECH_CLIP exits 0" \
    run_logged transcribe 300 tutor-app transcribe "$USER_HOME/clips/$SPEECH_CLIP" || true
words_missing=()
for w in "${SPEECH_WORDS[@]}"; do grep -qiw "$w" "$LOG_DIR/transcribe.log" || words_missing+=("$w"); done
check "4. transcript has the expected words (${SPEECH_WORDS[*]})" test ${#words_missing[@]} -eq 0 || true

check "4. tutor-app emotion \"I am so happy today\" exits 0" \
    run_logged emotion 300 tutor-app emotion --json "I am so happy today" || true
check "4. emotion: joy is the top label" \
    grep -q '"emotions": \[{"label": "joy"' "$LOG_DIR/emotion.log" || true

if as_user tutor-app chat --help | grep -q -- '--text'; then
    check "4. tutor-app --llm local chat: one turn exits 0" \
        run_logged chat 900 tutor-app --llm local chat --session verify-deb --text "Hi! I like coffee." --json || true
    check "4. chat: the local model gave a non-empty reply" \
        grep -q '"reply": "[^"]' "$LOG_DIR/chat.log" || true
fi

log "4. GUI under Xvfb"
t0=$(date +%s)
if apt_in_root install -y --no-install-recommends "${TEST_TOOLS[@]}" >"$LOG_DIR/apt-test-tools.log" 2>&1; then
    record PASS "4. test tools installed in the chroot (${TEST_TOOLS[*]}; not app dependencies)"
else
    tail "$LOG_DIR/apt-test-tools.log"; record FAIL "4. test tools installed in the chroot"
fi
# a display number free both in the chroot and on the host (abstract X sockets are shared)
DPY=90
while [[ -e $ROOT/tmp/.X$DPY-lock || -e /tmp/.X$DPY-lock ]] || grep -q "@/tmp/.X11-unix/X$DPY\$" /proc/net/unix; do
    DPY=$((DPY + 1))
done
XAUTH=$USER_HOME/.Xauthority-verify
FB_DIR=$USER_HOME/.xvfb-fb   # Xvfb keeps its screen there as an XWD file
as_user mkdir -p "$FB_DIR"
X_ENV=(DISPLAY=":$DPY" XAUTHORITY="$XAUTH")
echo "\$ xvfb-run -n $DPY -s \"-screen 0 1280x800x24 -fbdir $FB_DIR\" tutor-app gui &"
as_user xvfb-run -n "$DPY" -f "$XAUTH" -s "-screen 0 1280x800x24 -fbdir $FB_DIR" tutor-app gui \
    >"$LOG_DIR/gui.log" 2>&1 &
GUI_PID=$!
WID=""
for _ in $(seq 1 60); do
    sleep 1
    kill -0 "$GUI_PID" 2>/dev/null || break
    # The title is "English speaking practice — Tutor"; xdotool's regex stops at the
    # non-ASCII dash, so match the part before it.
    WID=$(as_user "${X_ENV[@]}" xdotool search --onlyvisible --name "English speaking practice" 2>/dev/null \
          | head -n 1 || true)
    [[ -n $WID ]] && break
done
if [[ -n $WID ]]; then
    TITLE=$(as_user "${X_ENV[@]}" xdotool getwindowname "$WID" || true)
    record PASS "4. GUI window \"$TITLE\" appeared after $(( $(date +%s) - t0 )) s"
    colours=0
    for _ in 1 2 3 4 5; do
        sleep 3   # let it paint (and the models banner settle)
        as_user sh -c "xwdtopnm <'$FB_DIR/Xvfb_screen0' 2>/dev/null | pnmtopng 2>/dev/null" >"$SCREENSHOT" || true
        colours=$(as_user sh -c 'pngtopnm | ppmhist -noheader | wc -l' <"$SCREENSHOT" 2>/dev/null || echo 0)
        [[ $colours -ge 20 ]] && break
    done
    echo "screenshot: $SCREENSHOT ($colours colours)"
    check "4. screenshot $SCREENSHOT is not blank ($colours colours)" test "$colours" -ge 20 || true
    APP_PID=$(as_user "${X_ENV[@]}" xdotool getwindowpid "$WID" 2>/dev/null || true)
    # No window manager under Xvfb to deliver a close request: end the app with SIGTERM.
    [[ -n $APP_PID ]] && kill -TERM "$APP_PID" 2>/dev/null || true
    closed=FAIL
    for _ in $(seq 1 30); do kill -0 "$GUI_PID" 2>/dev/null || { closed=PASS; break; }; sleep 1; done
    record "$closed" "4. GUI closed (SIGTERM to pid ${APP_PID:-?})"
else
    record FAIL "4. no Tutor window within 60 s (see $LOG_DIR/gui.log)"
    tail -n 30 "$LOG_DIR/gui.log"
fi
kill -TERM "$GUI_PID" 2>/dev/null || true
wait "$GUI_PID" 2>/dev/null || true
if grep -qi 'error' "$LOG_DIR/gui.log"; then
    echo "GUI log lines with 'error':"; grep -i 'error' "$LOG_DIR/gui.log" | head -n 10 | sed -e 's/^/    /'
fi
check "4. GUI log has no Python traceback" sh -c "! grep -q Traceback '$LOG_DIR/gui.log'" || true
# The bundle has libfontconfig but no config or fonts: without them all text is empty boxes.
check "4. GUI text can render (fontconfig found its config and fonts)" \
    sh -c "! grep -q 'Fontconfig error' '$LOG_DIR/gui.log'" || true

# The spoken call, as the user inside the chroot (written to the user's home below): a
# virtual sound card like scripts/virtual-audio.sh (PulseAudio with two null sinks: `spk`
# is the app's speaker, `micsrc` the learner's voice, its monitor the default microphone),
# the learner's lines spoken into WAVs by the app's own voice, then a live call with the
# bundled offline model: each line is played into the microphone once the tutor has
# finished its reply to the one before; the last line says goodbye, which ends the call.
# Usage: bash spoken-call.sh OUT_DIR (TUTOR_APP overrides the command, e.g. a source
# checkout's python -m tutor_app). Prints a line per step; exit 0 when every line was
# answered and the call ended with its report.
spoken_call_script() {
    cat <<'EOF'
set -u
out=$1
read -r -a app <<<"${TUTOR_APP:-tutor-app}"
mkdir -p "$out"
export XDG_RUNTIME_DIR=$out/xdg PULSE_SERVER=unix:$out/xdg/pulse/native
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
fail() { echo "spoken call: $*"; exit 1; }
pulseaudio -D --exit-idle-time=-1 --disallow-exit --log-target=file:"$out/pulse.log" || fail "pulseaudio did not start"
trap 'kill $(jobs -p) $(cat "$XDG_RUNTIME_DIR/pulse/pid" 2>/dev/null) 2>/dev/null; :' EXIT
trap 'exit 143' TERM INT   # timeout's SIGTERM: the EXIT trap still stops the app and the daemon
for _ in $(seq 100); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
pactl info >/dev/null 2>&1 || fail "pulseaudio does not answer (see $out/pulse.log)"
pactl unload-module module-suspend-on-idle >/dev/null 2>&1 || true
pactl load-module module-null-sink sink_name=spk >/dev/null
pactl load-module module-null-sink sink_name=micsrc >/dev/null
pactl set-default-sink spk
pactl set-default-source micsrc.monitor
pacat -r --latency-msec=20 -d micsrc.monitor >/dev/null 2>&1 &
pacat -r --latency-msec=20 -d spk.monitor >/dev/null 2>&1 &

lines=("I went to the market this morning." "My brother works in a big hospital."
       "I like to cook pasta on Sundays." "Thank you, that was fun. Goodbye!")
for i in "${!lines[@]}"; do
    "${app[@]}" speak "${lines[i]}" --output "$out/line$i.wav" >/dev/null 2>>"$out/speak.err" ||
        fail "tutor-app speak failed: $(tail -n 3 "$out/speak.err")"
done
# Short replies keep this step to a few minutes; a data dir of its own.
mkdir -p "$out/data/config"
printf '[llm]\nmax_tokens = 40\n' >"$out/data/config/settings.toml"

# --json: one line per tutor turn, then the call's summary; a greeting (a tutor turn before
# the learner speaks) has an empty user_text and is not counted as a reply.
streams() { pactl list short source-outputs | grep -c . || true; }
before=$(streams)
"${app[@]}" --data-dir "$out/data" --llm local call --live --json --audio-mode headset --max-turns 8 \
    >"$out/call.jsonl" 2>"$out/call.err" &
call=$!
replies() { grep -c '"user_text": "[^"].*"reply": "[^"]' "$out/call.jsonl" || true; }
alive() { kill -0 "$call" 2>/dev/null; }
# Listening once the app's own recording stream is on the microphone (next to pacat's).
for _ in $(seq 600); do
    [[ $(streams) -gt $before ]] && break
    alive || break; sleep 0.5
done
alive || fail "the call ended before it listened: $(tail -n 5 "$out/call.err")"
for i in "${!lines[@]}"; do
    paplay --device=micsrc "$out/line$i.wav" || fail "paplay failed on line $((i + 1))"
    for _ in $(seq 600); do   # up to 5 min a turn on a slow machine; the reply line comes once it was spoken
        [[ $(replies) -gt $i ]] && break
        alive || break; sleep 0.5
    done
    [[ $(replies) -gt $i ]] || fail "no reply to line $((i + 1)) of ${#lines[@]}$(alive || echo ' (the app exited)')"
    echo "line $((i + 1)): answered"
done
for _ in $(seq 600); do alive || break; sleep 0.5; done   # goodbye ends the call; then extraction and report
alive && { kill "$call"; fail "the call did not end after goodbye"; }
wait "$call"; rc=$?
[[ $rc -eq 0 ]] || fail "tutor-app call exited $rc: $(tail -n 5 "$out/call.err")"
grep -q 'Fatal Python error\|Traceback' "$out/call.err" && fail "a crash or traceback: $(grep -m1 -A3 'Fatal Python error\|Traceback' "$out/call.err")"
summary=$(tail -n 1 "$out/call.jsonl")
[[ $summary == *'"session_id": "'* && $summary == *'"report": {"'* ]] || fail "no call summary with a report: $summary"
echo "call ended with its report: $(replies) replies to ${#lines[@]} lines"
EOF
}

log "4. a spoken call on a virtual sound card (offline model)"
t0=$(date +%s)
# PulseAudio refuses to start without a machine id; a minbase chroot has an empty one.
[[ -s $ROOT/etc/machine-id ]] || od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$ROOT/etc/machine-id"
spoken_call_script >"$ROOT$USER_HOME/spoken-call.sh"
in_root chown "$USER_NAME:$USER_NAME" "$USER_HOME/spoken-call.sh"
if run_logged spoken-call 1800 bash "$USER_HOME/spoken-call.sh" "$USER_HOME/spoken-call"; then
    record PASS "4. spoken call: 4 lines played into the microphone, each answered aloud, goodbye ended it with its report ($(( $(date +%s) - t0 )) s)"
else
    record FAIL "4. spoken call on the virtual sound card (logs: $USER_HOME/spoken-call in the chroot)"
    for f in call.err pulse.log; do
        if [[ -f $ROOT$USER_HOME/spoken-call/$f ]]; then
            echo "    $f:"; grep -v 'underrun occurred' "$ROOT$USER_HOME/spoken-call/$f" | tail -n 15 | sed -e 's/^/    /' || true
        fi
    done
fi
cp "$ROOT$USER_HOME/spoken-call/call.jsonl" "$LOG_DIR/spoken-call.jsonl" 2>/dev/null || true
check "4. spoken call: no crash (no 'Fatal Python error' in its stderr)" \
    sh -c "! grep -qs 'Fatal Python error' '$ROOT$USER_HOME/spoken-call/call.err'" || true

DESKTOP=/usr/share/applications/tutor-app.desktop
check "4. menu entry $DESKTOP has Exec=tutor-app gui" grep -qx 'Exec=tutor-app gui' "$ROOT$DESKTOP" || true
ICON=$(sed -n 's/^Icon=//p' "$ROOT$DESKTOP" 2>/dev/null | head -n 1)
check "4. menu icon '$ICON' installed (hicolor)" \
    sh -c "ls '$ROOT/usr/share/icons/hicolor/'*/apps/'${ICON:-none}'.* >/dev/null 2>&1" || true
check "4. desktop-file-validate accepts the menu entry" in_root desktop-file-validate "$DESKTOP" || true

# ---------------------------------------------------------------- 5. remove
log "5. apt-get remove -y tutor-app"
check "5. apt-get remove -y tutor-app" sh -c "chroot '$ROOT' env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0 remove -y tutor-app >'$LOG_DIR/apt-remove.log' 2>&1" || true
for gone in /opt/tutor-app /usr/bin/tutor-app "$DESKTOP"; do
    check "5. $gone is gone" test ! -e "$ROOT$gone" -a ! -L "$ROOT$gone" || true
done
if [[ -d $ROOT$DATA_DIR ]]; then
    echo "the user's data stays in $DATA_DIR ($(du -sh "$ROOT$DATA_DIR" | cut -f1)):" \
         "expected, apt never deletes users' files; it is theirs to delete"
    record INFO "5. user data kept in ~$USER_NAME/.local/share/tutor-app after remove (expected)"
fi

# ---------------------------------------------------------------- 6. summary
log "summary ($(( $(date +%s) - START )) s; logs in $LOG_DIR)"
printf '%s\n' "${RESULTS[@]}"
if [[ $FAILED -eq 0 ]]; then echo "RESULT: PASS"; exit 0; fi
echo "RESULT: FAIL"; exit 1
