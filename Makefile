# Passbox: the two commands of the README.
#   make run   installs what is missing, builds in release mode, starts the account server in the background
#              (SQLite, 127.0.0.1:8787), starts the agent and ends with the web UI's address (opened in the
#              browser when a display exists)
#   make stop  stops that server
#   make test  installs what is missing, builds and runs every test (PostgreSQL's tests on a throwaway cluster);
#              make deploy-test, which CI runs after it as root, runs the release binary's and the deployment's
#   make fuzz  runs every libFuzzer target in Fuzz/ for FUZZ_SECONDS (60) seconds (scripts/fuzz.sh)
#   make check the fast lane: the unit tests that need no agent, server, database or browser
#   make soak  the long randomised runs (the sync simulation's 2,000 operations from a new seed, the incremental saves' 200 steps)
SHELL := /bin/bash
DEBIAN_PACKAGES := pkg-config libsodium-dev libargon2-dev libssl-dev zlib1g-dev libsqlite3-dev libmicrohttpd-dev libcairo2-dev libqrencode-dev fonts-dejavu-core libzxcvbn-dev libzbar-dev libpng-dev libturbojpeg0-dev \
  libpsl-dev publicsuffix libidn2-dev libicu-dev libcurl4-openssl-dev \
  libsystemd-dev libpam0g-dev libxcb1-dev g++ libstdc++-12-dev libpq-dev poppler-utils libxml2 libseccomp-dev libseccomp2 libnotify-bin
# (libnotify-bin: notify-send, through which the agent shows new breaches as desktop notifications, SEC-18.)
# Independent implementations the tests compare against: oathtool (codes) and qrencode (QR images); an X
# server and xclip for the clipboard test, sway (its headless compositor) and wl-clipboard for its Wayland
# half, iproute2's ss (a request waiting unread at the clipboard helper); python3 for the range server and the other-user socket client;
# dbus-daemon for private buses, python3-dbus and python3-gi for the peer that plays systemd-logind in the lock-signal tests.
BENCH_PACKAGES := wrk keepassxc python3-pykeepass bc time postgresql haproxy
# postgresql: the server tests start a throwaway cluster of it (initdb in a temporary directory, run as the
# postgres user it makes; nothing is left behind). chromium, chromium-driver and python3-selenium drive the web
# UI's browser test (Tests/Web/ui_test.py); python3-pip fetches axe-core for its accessibility checks. keepassxc
# (keepassxc-cli) and python3-pykeepass read Passbox's KeePass exports and made the import fixtures. python3-pil
# makes the phone-like photos of a printed backup's pages. nodejs checks that every script of the page parses, in
# the fast lane, before a browser ever loads it. firefox-esr (driven through its built-in WebDriver BiDi, with
# python3-websocket: Debian 12 has no geckodriver) and chromium run the browser extension's flows.
# desktop-file-utils checks the passbox-link: handler's desktop entry.
TEST_PACKAGES := oathtool qrencode curl openssl poppler-utils xvfb xclip python3 python3-dbus python3-gi dbus-daemon postgresql \
  chromium chromium-driver python3-selenium python3-pip keepassxc python3-pykeepass python3-pil nodejs firefox-esr firefox-esr-l10n-de python3-websocket \
  desktop-file-utils sway wl-clipboard iproute2
SWIFT ?= swift
BIN := .build/release/passbox
# The release binary links the C++ runtime the Swift runtime needs statically too: a directory holding only
# libstdc++.a, searched before the system's, makes the toolchain's -lstdc++ pick the archive. That removes
# about 5,000 symbol lookups from every start (2.8 ms instead of 3.3 ms for `passbox --version` here).
STATIC_CXX_DIR := .build/static-libstdcxx
RELEASE_FLAGS := -c release --static-swift-stdlib -Xlinker -L$(CURDIR)/$(STATIC_CXX_DIR)

# lintian and mandoc check the Debian package (make deb-test); systemd's systemd-analyze verifies and scores its units.
DEB_TEST_PACKAGES := lintian mandoc systemd desktop-file-utils curl python3 zsh fish
# nginx and HAProxy in front of the server, terminating TLS with a CA made for the test (make proxy-test).
PROXY_TEST_PACKAGES := nginx-light haproxy openssl curl python3
SCALE_TEST_PACKAGES := haproxy postgresql curl python3

.PHONY: run stop test check soak protocol-doc deps test-deps install-packages build bench fuzz clean pam-service static-cxx extension deb deb-test proxy-test scale-test release-test deploy-test

deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(DEBIAN_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(TEST_PACKAGES)"

install-packages:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps static-cxx
	$(SWIFT) build $(RELEASE_FLAGS) --product passbox

static-cxx:
	@mkdir -p $(STATIC_CXX_DIR) && archive="$$(g++ -print-file-name=libstdc++.a 2>/dev/null)" && [ -f "$$archive" ] \
	  && ln -sf "$$archive" $(STATIC_CXX_DIR)/libstdc++.a || { echo "libstdc++.a not found (apt-get install libstdc++-12-dev g++)"; exit 1; }

run: build pam-service
	@$(BIN) welcome
	@echo
	@scripts/server.sh start $(CURDIR)/$(BIN)
	@echo
	@$(MAKE) --no-print-directory extension >/dev/null
	@$(BIN) browser install 2>/dev/null || echo "Browser extension: once Chromium, Chrome or Firefox has run here, \"$(BIN) browser install\" connects it (see README)"
	@$(BIN) link install || echo "passbox-link: addresses: \"$(BIN) link install\" registers their handler once the problem above is mended"
	@echo
	@echo "Shell completion: $(BIN) completion bash > ~/.local/share/bash-completion/completions/passbox"
	@echo "  (or: completion zsh > \"\$${fpath[1]}/_passbox\", completion fish > ~/.config/fish/completions/passbox.fish)"
	@echo
	@$(BIN) ui

stop:
	@scripts/server.sh stop

# The PAM service quick unlock asks (see docs/SECURITY.md); left alone when it is already there.
pam-service:
	@if [ ! -e /etc/pam.d/passbox ] && [ -d /etc/pam.d ]; then \
	  if [ "$$(id -u)" = 0 ]; then install -m 0644 dist/pam.d/passbox /etc/pam.d/passbox; \
	  elif command -v sudo >/dev/null; then sudo install -m 0644 dist/pam.d/passbox /etc/pam.d/passbox; fi; \
	  [ -e /etc/pam.d/passbox ] && echo "Installed /etc/pam.d/passbox (quick unlock)" || echo "Quick unlock stays off: /etc/pam.d/passbox could not be installed"; \
	fi

# The tests run the debug build. scripts/test.sh runs the browser flows beside the Swift tests (see there why).
# The test tools (test-deps) install beside the build, from scripts/test.sh, as root; through sudo first, where
# sudo may have to ask for a password (a background job has no terminal to ask on). The release binary's own
# tests (that it refuses every test hook) are make release-test's, part of make deploy-test.
test: deps
	@[ "$$(id -u)" = 0 ] || $(MAKE) --no-print-directory test-deps
	SWIFT=$(SWIFT) PASSBOX_TEST_DEPS="$(MAKE) --no-print-directory test-deps" scripts/test.sh

# The unit-test modules that start no agent, server, database or browser: about 80 s from a warm build on
# 2 cores (issue 29's budget is 90 s), against about 6 minutes for every Swift test.
CHECK_SUITES := PassboxCryptoTests|PassboxCoreTests|PassboxStoreTests|PassboxInteropTests|PassboxImagingTests|PassboxSyncTests|PassboxCheckTests|PassboxWebTests|PassboxHTTPTests|PassboxSQLiteTests
check: deps
	$(SWIFT) build --build-tests
	PASSBOX_TEST_ACCOUNT_KDF=cheap $(SWIFT) test --skip-build --filter '^($(CHECK_SUITES))\.'

soak: deps test-deps
	$(SWIFT) build --build-tests
	PASSBOX_SOAK=1 PASSBOX_REQUIRE_POSTGRES=1 PASSBOX_TEST_ACCOUNT_KDF=cheap $(SWIFT) test --skip-build --filter 'SyncSimulationTests|IncrementalSaveTests'

# docs/PROTOCOL.md's operations table, written anew from the registry (Sources/PassboxProtocol/Operations.swift).
protocol-doc: deps
	$(SWIFT) build --build-tests
	PASSBOX_WRITE_PROTOCOL_DOC=1 $(SWIFT) test --skip-build --filter 'OperationRegistryTests/theProtocolDocumentIsGeneratedFromTheRegistry'

bench: build
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BENCH_PACKAGES)"
	$(BIN) bench vault
	$(BIN) bench search
	$(BIN) bench check
	$(BIN) bench agent
	$(BIN) bench list
	$(BIN) bench save
	$(BIN) bench ui
	$(BIN) bench browser
	$(BIN) bench sharing
	$(BIN) bench link
	/usr/bin/python3 scripts/bench-browser.py --passbox $(BIN)
	scripts/bench-server.sh $(CURDIR)/$(BIN)
	scripts/bench-import.sh $(CURDIR)/$(BIN)
	scripts/bench-attach.sh $(CURDIR)/$(BIN)

# The Debian package from the release build: passbox_VERSION_ARCH.deb here (scripts/make-deb.sh), and its test,
# which installs it on this machine as root, checks it and removes it (scripts/deb-test.sh; .ci/run runs it).
deb: build
	@scripts/make-deb.sh $(BIN) .

deb-test: deb
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(DEB_TEST_PACKAGES)"
	scripts/deb-test.sh

# The server behind nginx and behind HAProxy (dist/proxy/), each terminating TLS (scripts/proxy-test.sh).
proxy-test: build
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(PROXY_TEST_PACKAGES)"
	scripts/proxy-test.sh $(BIN)

# Three server processes on one throwaway PostgreSQL cluster behind HAProxy (dist/proxy/haproxy-passbox-cluster.cfg),
# one killed in the middle of two accounts' devices' pushes (scripts/scale-test.py).
scale-test: build
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(SCALE_TEST_PACKAGES)"
	/usr/bin/python3 scripts/scale-test.py $(BIN)

# ReleaseBinaryTests against make run's own binary (the one the Debian package ships): the test hooks are
# absent from it. The suite comes from the tests' debug build (make test's, built here if missing), and it
# starts a debug server and client too, to make an account the release binary must refuse.
release-test: build
	PASSBOX_RELEASE_BINARY=$(CURDIR)/$(BIN) $(SWIFT) test --scratch-path .build/make-test -debug-info-format none --filter ReleaseBinaryTests

# What .ci/run runs after make test: the release binary's tests, the package's, the reverse proxies' and the
# several servers'.
deploy-test: release-test deb-test proxy-test scale-test

# The browser extension laid out for each browser: .build/extension/chromium (extension/ itself loads in
# Chromium too) and .build/extension/firefox (its manifest.firefox.json as manifest.json).
extension:
	@extension/tools/assemble.sh .build/extension/chromium chromium
	@extension/tools/assemble.sh .build/extension/firefox firefox

# Builds apart from the normal build (.build/fuzz); exits non-zero on a crash, its input in Fuzz/crashes/.
fuzz: deps test-deps
	FUZZ_SECONDS=$${FUZZ_SECONDS:-60} scripts/fuzz.sh
	$(SWIFT) build --build-tests
	PASSBOX_SOAK=1 PASSBOX_TEST_ACCOUNT_KDF=cheap $(SWIFT) test --skip-build --filter 'AgentFuzzTests|TextImportTests|AuthenticatorImportTests|BackupShardsTests|KDBXMutationTests'

clean:
	rm -rf .build
