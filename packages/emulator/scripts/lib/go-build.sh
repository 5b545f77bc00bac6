# packages/emulator/scripts/lib/go-build.sh: what the scripts that build from Go modules into the cache share
# (scripts/ensure-pulumi, scripts/ensure-pulumi-kubernetes and scripts/ensure-actionlint of the repository, scripts/ensure-kubernetes of this package). Sourced, not run. The caller sets
# SCRIPT_NAME (the prefix of every message) and defines `die` before calling these.

log() { printf '%s: %s\n' "$SCRIPT_NAME" "$*" >&2; }

# Every build without debug information: each binary is linked with -s -w, which drops it anyway,
# and not generating it takes about a tenth off a cold compile (docs/benchmarks.md, "Building
# without debug information"). A flag in GOFLAGS reaches every go command that knows it.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-gcflags=all=-dwarf=false"

version_at_least() { # version_at_least HAVE MIN
	[[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]
}

# The `go` to build with: PATH, else Go's default install location.
find_go() {
	if command -v go >/dev/null 2>&1; then
		command -v go
	elif [[ -x /usr/local/go/bin/go ]]; then
		echo /usr/local/go/bin/go
	else
		die "\`go\` was not found (PATH or /usr/local/go/bin). The build needs Go >= 1.26 (https://go.dev/doc/install) and access to a Go module proxy."
	fi
}

# The pid of the download/build running in the background, for on_signal.
child_pid=""

# run_with_progress LOG COUNT_LABEL CMD...: run CMD in the background (so that
# a signal interrupts us at once) with its output in LOG, and report progress
# to stderr every 30 s; COUNT_LABEL, when not empty, names what LOG's lines
# count. Returns CMD's exit status.
run_with_progress() {
	local logf=$1 label=$2 started=$SECONDS last=$SECONDS status=0 what
	shift 2
	"$@" >"$logf" 2>&1 &
	child_pid=$!
	while kill -0 "$child_pid" 2>/dev/null; do
		sleep 1
		if ((SECONDS - last >= 30)); then
			last=$SECONDS
			what=""
			[[ -n "$label" ]] && what=", $(wc -l <"$logf") $label"
			log "  ... $((SECONDS - started)) s$what"
		fi
	done
	wait "$child_pid" || status=$?
	child_pid=""
	log "  done in $((SECONDS - started)) s"
	return "$status"
}

on_signal() {
	if [[ -n "$child_pid" ]]; then
		kill "$child_pid" 2>/dev/null || true
		wait "$child_pid" 2>/dev/null || true
	fi
	log "interrupted: the cache was left as it was"
	exit 130
}

# take_build_lock NAME: one build of NAME at a time; a second caller waits for the first.
take_build_lock() {
	exec 9>"$cache_root/.$1.lock"
	if ! flock -n 9; then
		log "another $SCRIPT_NAME is building $1; waiting for it ..."
		flock 9
	fi
}

# install_release WORK_DIR RELEASE_DIR: move WORK_DIR/release into place as RELEASE_DIR, so that
# the release directory only ever appears complete.
install_release() {
	local work=$1 release=$2
	if [[ -e "$release" ]]; then
		mv "$release" "$work/old-release"
	fi
	mv "$work/release" "$release"
}
