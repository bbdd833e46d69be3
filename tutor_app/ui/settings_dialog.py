"""Settings: tutor (accent, level, topic, speaking speed, thinking time), audio (devices, test, headset/speaker), tutor
model (backend, model, API key in the OS keyring), speech (STT model/device, voice
preview) and where the data lives. Saves through the settings store (settings_store.py)."""
from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QIcon
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from tutor_app.errors import error_text
from tutor_app.settings import ACCENTS, LEVELS, Settings, SpeechSettings
from tutor_app.settings_store import FormEdit
from tutor_app.ui.api_key_field import ApiKeyField
from tutor_app.ui.pace_settings import PaceControls
from tutor_app.ui.services import UiServices
from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP
from tutor_app.ui.workers import run_task

log = logging.getLogger(__name__)

ACCENT_NAMES = {"us": QT_TRANSLATE_NOOP("SettingsDialog", "American (US)"), "uk": QT_TRANSLATE_NOOP("SettingsDialog", "British (UK)"), "au": QT_TRANSLATE_NOOP("SettingsDialog", "Australian (AU)")}
LEVEL_NAMES = {"beginner": QT_TRANSLATE_NOOP("SettingsDialog", "Beginner"), "intermediate": QT_TRANSLATE_NOOP("SettingsDialog", "Intermediate"), "advanced": QT_TRANSLATE_NOOP("SettingsDialog", "Advanced")}
TOPICS = ("daily", "travel", "business", "interview", "small talk", "school", "hobbies", "news")
TOPIC_NAMES = {"daily": QT_TRANSLATE_NOOP("SettingsDialog", "Daily"), "travel": QT_TRANSLATE_NOOP("SettingsDialog", "Travel"),
               "business": QT_TRANSLATE_NOOP("SettingsDialog", "Business"),
               "interview": QT_TRANSLATE_NOOP("SettingsDialog", "Interview"),
               "small talk": QT_TRANSLATE_NOOP("SettingsDialog", "Small talk"),
               "school": QT_TRANSLATE_NOOP("SettingsDialog", "School"), "hobbies": QT_TRANSLATE_NOOP("SettingsDialog", "Hobbies"),
               "news": QT_TRANSLATE_NOOP("SettingsDialog", "News")}
BACKENDS = (("", QT_TRANSLATE_NOOP("SettingsDialog", "Automatic: Claude when a key is set, else offline")), ("anthropic", QT_TRANSLATE_NOOP("SettingsDialog", "Claude (cloud)")),
            ("local", QT_TRANSLATE_NOOP("SettingsDialog", "Offline model on this computer")))
CLAUDE_MODELS = ("claude-haiku-4-5", "claude-sonnet-4-5")
STT_DEVICES = (("auto", QT_TRANSLATE_NOOP("SettingsDialog", "Automatic (GPU when available)")), ("cpu", QT_TRANSLATE_NOOP("SettingsDialog", "CPU")), ("cuda", QT_TRANSLATE_NOOP("SettingsDialog", "GPU (CUDA)")))
LANGUAGES = {"system": QT_TRANSLATE_NOOP("SettingsDialog", "Same as the system")}  # and English, 한국어 as such
DEFAULT_DEVICE = QT_TRANSLATE_NOOP("SettingsDialog", "System default")
PREVIEW_TEXT = "Hi! I'm your English tutor. Shall we practise together today?"


def _combo(items, current: str, name: str) -> QComboBox:
    box = QComboBox()
    box.setAccessibleName(name)
    for value, text in items:
        box.addItem(QCoreApplication.translate("SettingsDialog", text), value)
    index = box.findData(current)
    if index < 0 and current:
        box.addItem(current, current)
        index = box.count() - 1
    box.setCurrentIndex(max(0, index))
    return box


def _hint(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("FieldHint")
    label.setWordWrap(True)
    return label


class SettingsDialog(QDialog):
    def __init__(self, services: UiServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.settings = services.settings
        self.edit = FormEdit(self.settings)  # saving writes only what was changed here
        self.setWindowTitle(self.tr("Settings"))
        self.setMinimumSize(620, 520)
        col = QVBoxLayout(self)
        col.setContentsMargins(18, 18, 18, 14)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._tutor_tab(), self.tr("Tutor"))
        self.tabs.addTab(self._audio_tab(), self.tr("Audio"))
        self.tabs.addTab(self._model_tab(), self.tr("Tutor model"))
        self.tabs.addTab(self._speech_tab(), self.tr("Speech"))
        self.tabs.addTab(self._data_tab(), self.tr("Data"))
        col.addWidget(self.tabs, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        for b in buttons.buttons():
            b.setIcon(QIcon())  # the platform's floppy/cross icons clash with the calm look
        col.addWidget(buttons)
        self._load_async()

    # -- tabs -----------------------------------------------------------------------
    def _form(self) -> tuple[QWidget, QFormLayout]:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(18, 18, 18, 18)
        form.setHorizontalSpacing(16)
        form.setVerticalSpacing(12)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        return page, form

    def _tutor_tab(self) -> QWidget:
        page, form = self._form()
        t = self.settings.tutor
        self.accent = _combo([(a, ACCENT_NAMES.get(a, a)) for a in ACCENTS], t.accent, self.tr("Accent"))
        self.level = _combo([(lv, LEVEL_NAMES.get(lv, lv.capitalize())) for lv in LEVELS], t.level, self.tr("Level"))
        self.topic = _combo([(tp, TOPIC_NAMES[tp]) for tp in TOPICS], t.topic, self.tr("Topic"))
        self.topic.setEditable(True)  # any topic the learner wants to practise
        form.addRow(self.tr("Accent"), self.accent)
        form.addRow(self.tr("Level"), self.level)
        form.addRow(self.tr("Topic"), self.topic)
        form.addRow("", _hint(self.tr("The tutor speaks with this accent, at this level, and steers the "
                                      "conversation towards the topic.")))
        self.pace = PaceControls(self.settings.speech, t.level)
        self.pace.add_to(form)
        self.level.currentIndexChanged.connect(lambda _i: self.pace.set_level(self.level.currentData()))
        # The interface's language (ui/translation.py), read at start: a change shows from the next one,
        # which the hint says once a new language is picked.
        self.ui_language = _combo((("system", LANGUAGES["system"]), ("en", "English"), ("ko", "한국어")),
                                  t.ui_language, self.tr("Interface language"))
        # Beside it (the tab is full at 800 x 600): the call-end review adds a Korean line to
        # each correction (tutor/explain_ko.py).
        self.explain_korean = QCheckBox(self.tr("Explain corrections in Korean"))
        self.explain_korean.setChecked(t.explain_in_korean)
        self.explain_korean.setToolTip(self.tr("The report after each call explains each correction in English "
                                               "and in Korean."))
        language_row = QHBoxLayout()
        language_row.addWidget(self.ui_language, 1)
        language_row.addWidget(self.explain_korean)
        form.addRow(self.tr("Language"), language_row)
        self.language_hint = _hint(self.tr("Used from the next start of Tutor."))
        self.language_hint.hide()
        form.addRow("", self.language_hint)
        self.ui_language.currentIndexChanged.connect(
            lambda _i: self.language_hint.setVisible(self.ui_language.currentData() != t.ui_language))
        return page

    def _audio_tab(self) -> QWidget:
        page, form = self._form()
        sp = self.settings.speech
        self.input_device = _combo([("", DEFAULT_DEVICE)], sp.input_device, self.tr("Microphone"))
        self.output_device = _combo([("", DEFAULT_DEVICE)], sp.output_device, self.tr("Speaker"))
        form.addRow(self.tr("Microphone"), self.input_device)
        form.addRow(self.tr("Speaker"), self.output_device)
        test_row = QHBoxLayout()
        self.test_audio_button = QPushButton(self.tr("Test: record 3 s and play back"))
        self.test_audio_button.setAccessibleName(self.tr("Test microphone and speaker"))
        self.test_audio_button.clicked.connect(self.test_audio)
        self.audio_status = _hint("")
        test_row.addWidget(self.test_audio_button)
        test_row.addWidget(self.audio_status, 1)
        form.addRow("", test_row)
        mode_box = QVBoxLayout()
        self.mode_auto = QRadioButton(self.tr("Automatic: headset or speakers, from your device's name"))
        self.mode_headset = QRadioButton(self.tr("Headset: you can interrupt the tutor at any time"))
        self.mode_speaker = QRadioButton(self.tr("Laptop speakers: Tutor cancels its own voice, so you can "
                                                 "still interrupt it"))
        group = QButtonGroup(page)
        for button in (self.mode_auto, self.mode_headset, self.mode_speaker):
            group.addButton(button)
            mode_box.addWidget(button)
        {"speaker": self.mode_speaker, "headset": self.mode_headset}.get(sp.audio_mode, self.mode_auto).setChecked(True)
        form.addRow(self.tr("Mode"), mode_box)
        return page

    def _model_tab(self) -> QWidget:
        page, form = self._form()
        llm = self.settings.llm
        self.backend = _combo(BACKENDS, llm.backend, self.tr("Tutor model backend"))
        self.claude_model = _combo([(m, m) for m in CLAUDE_MODELS], llm.anthropic_model, self.tr("Claude model"))
        self.claude_model.setEditable(True)
        self.local_model = _combo([(llm.local_model, llm.local_model)], llm.local_model, self.tr("Offline model"))
        self.fallback = QCheckBox(self.tr("Use the offline model when Claude or the local server cannot be reached"))
        self.fallback.setChecked(llm.fallback_to_local)
        form.addRow(self.tr("Backend"), self.backend)
        form.addRow(self.tr("Claude model"), self.claude_model)
        form.addRow(self.tr("Offline model"), self.local_model)
        # An OpenAI-compatible server on this computer (Ollama, LM Studio, llama.cpp) replaces
        # the offline model when a URL is set; the offline model answers when it is down.
        self.server_url = QLineEdit(llm.local_server_url)
        self.server_url.setAccessibleName(self.tr("Local model server URL"))
        self.server_url.setPlaceholderText(self.tr("empty: run the offline model in the app (e.g. http://127.0.0.1:11434)"))
        self.server_model = QLineEdit(llm.local_server_model)
        self.server_model.setAccessibleName(self.tr("Local server model name"))
        self.server_model.setPlaceholderText(self.tr("empty: the server's first model (e.g. qwen2.5:3b)"))
        form.addRow(self.tr("Local server"), self.server_url)
        form.addRow(self.tr("Server model"), self.server_model)
        form.addRow("", self.fallback)
        self.key_field = ApiKeyField(self.services, lambda: self.claude_model.currentText().strip()
                                     or self.settings.llm.anthropic_model)
        # The parts tests and other code reach by name.
        self.key_edit, self.key_status, self.key_result = self.key_field.edit, self.key_field.status, self.key_field.result
        self.test_key_button, self.remove_key_button = self.key_field.test_button, self.key_field.remove_button
        form.addRow(self.tr("API key"), self.key_field)
        form.addRow("", _hint(self.tr("The key is kept in your system's keyring, never in a file. Calls to Claude "
                                      "send the conversation to Anthropic; the offline model keeps everything here.")))
        return page

    def _speech_tab(self) -> QWidget:
        page, form = self._form()
        sp = self.settings.speech
        self.stt_model = _combo([(sp.stt_model, sp.stt_model)], sp.stt_model, self.tr("Speech recognition model"))
        self.stt_device = _combo(STT_DEVICES, sp.stt_device, self.tr("Speech recognition device"))
        self.compute_label = _hint("")
        form.addRow(self.tr("Recognition model"), self.stt_model)
        form.addRow(self.tr("Runs on"), self.stt_device)
        form.addRow("", self.compute_label)
        voice_row = QHBoxLayout()
        self.tts_voice = _combo([(sp.tts_voice, sp.tts_voice)], sp.tts_voice, self.tr("Tutor voice"))
        self.preview_button = QPushButton(self.tr("Preview"))
        self.preview_button.setAccessibleName(self.tr("Preview the voice"))
        self.preview_button.clicked.connect(self.preview_voice)
        voice_row.addWidget(self.tts_voice, 1)
        voice_row.addWidget(self.preview_button)
        form.addRow(self.tr("Voice"), voice_row)
        self.voice_status = _hint("")
        form.addRow("", self.voice_status)
        form.addRow("", _hint(self.tr("A new recognition model, device or voice is used from the next start of "
                                      "Tutor; install more models on the Models page.")))
        return page

    def _data_tab(self) -> QWidget:
        page, form = self._form()
        paths = self.settings.paths
        for title, opener, path in ((self.tr("Data folder"), self.tr("Open the data folder"), paths.data_dir),
                                    (self.tr("Models folder"), self.tr("Open the models folder"), paths.models_dir),
                                    (self.tr("Settings file"), "", paths.settings_file)):
            row = QHBoxLayout()
            # A read-only field, not a label: a long path scrolls inside it instead of
            # widening the dialog past a small screen; it can still be selected and copied.
            field = QLineEdit(str(path))
            field.setReadOnly(True)
            field.setCursorPosition(0)
            field.setToolTip(str(path))
            field.setAccessibleName(title)
            row.addWidget(field, 1)
            if opener:
                button = QPushButton(self.tr("Open"))
                button.setAccessibleName(opener)
                button.clicked.connect(lambda _=False, p=path: QDesktopServices.openUrl(QUrl.fromLocalFile(str(p))))
                row.addWidget(button)
            form.addRow(title, row)
        form.addRow("", _hint(self.tr("Everything Tutor knows about you stays in the data folder on this computer. "
                                      "Nothing is sent anywhere else; there is no telemetry.")))
        return page

    # -- background loading -------------------------------------------------------------
    def _load_async(self) -> None:
        self.key_field.refresh_status()

        def models():
            reg = self.services.registry()
            return {role: [s.name for s in reg.for_role(role)] for role in ("stt", "tts", "llm-local")}

        run_task(models, on_done=self._fill_models, on_error=lambda e: log.info("models: %s", e), context=self)
        run_task(self.services.audio_devices, on_done=self._fill_devices,
                 on_error=lambda e: self.audio_status.setText(self.tr("No audio devices: %1").replace("%1", error_text(e))), context=self)
        run_task(self.services.compute, on_done=lambda text: self.compute_label.setText(
            self.tr("This computer: %1").replace("%1", text) if text else ""), on_error=lambda e: None, context=self)

    def _fill_models(self, by_role: dict[str, list[str]]) -> None:
        for box, role in ((self.stt_model, "stt"), (self.tts_voice, "tts"), (self.local_model, "llm-local")):
            current = box.currentData()
            box.clear()
            for name in by_role.get(role, []):
                box.addItem(name, name)
            if box.findData(current) < 0:
                box.addItem(current, current)
            box.setCurrentIndex(box.findData(current))

    def _fill_devices(self, devices) -> None:
        for box, names, default in ((self.input_device, devices.inputs, devices.default_input),
                                    (self.output_device, devices.outputs, devices.default_output)):
            current = box.currentData()
            box.clear()
            system_default = QCoreApplication.translate("SettingsDialog", DEFAULT_DEVICE)
            box.addItem(f"{system_default} ({default})" if default else system_default, "")
            for name in names:
                box.addItem(name, name)
            if box.findData(current) < 0:
                box.addItem(self.tr("%1 (not connected)").replace("%1", current), current)
            box.setCurrentIndex(box.findData(current))
        if not devices.inputs:
            self.audio_status.setText(self.tr("No microphone found. You can still type to your tutor."))

    # -- actions ----------------------------------------------------------------------
    def test_audio(self) -> None:
        self.test_audio_button.setEnabled(False)
        mic, out = self.input_device.currentData() or "", self.output_device.currentData() or ""

        def done(text: str) -> None:
            self.test_audio_button.setEnabled(True)
            self.audio_status.setText(text)

        def failed(exc: BaseException) -> None:
            self.test_audio_button.setEnabled(True)
            self.audio_status.setText(self.tr("Test failed: %1").replace("%1", error_text(exc)))

        run_task(lambda progress: self.services.audio_test(mic, out, progress), on_done=done, on_error=failed,
                 on_progress=lambda d, t, what: self.audio_status.setText(what.capitalize() + "…"), context=self)

    def preview_voice(self) -> None:
        if (preview := self.services.tts_preview) is None:
            self.voice_status.setText(self.tr("Voice preview is not available."))
            return
        self.preview_button.setEnabled(False)
        self.voice_status.setText(self.tr("Speaking…"))

        def finished(text: str) -> None:
            self.preview_button.setEnabled(True)
            self.voice_status.setText(text)

        voice = self.tts_voice.currentData() or self.settings.speech.tts_voice  # picked here, saved or not
        output = self.output_device.currentData() or ""
        run_task(lambda: preview(PREVIEW_TEXT, voice, output), on_done=lambda _r: finished(""),
                 on_error=lambda e: finished(self.tr("Preview failed: %1").replace("%1", error_text(e))), context=self)

    def _topic(self) -> str:
        """The topic's key when a listed one is shown (its name may be translated), else what was typed."""
        text = self.topic.currentText().strip()
        index = self.topic.findText(text, Qt.MatchFlag.MatchFixedString)  # case-insensitive
        return str(self.topic.itemData(index)) if index >= 0 else text.lower()

    def changes(self) -> Callable[[Settings], None]:
        """The fields changed here, as a change for the settings store: read here on the GUI
        thread, applied wherever the store is updated (a worker, after the key)."""
        s, speaker, pace = self.settings, self.mode_speaker.isChecked(), SpeechSettings()
        self.pace.apply(pace)
        values = {
            "tutor": {"accent": self.accent.currentData(), "level": self.level.currentData(),
                      "topic": self._topic() or s.tutor.topic,
                      "ui_language": self.ui_language.currentData() or "system",
                      "explain_in_korean": self.explain_korean.isChecked()},
            "speech": {"input_device": self.input_device.currentData() or "",
                       "output_device": self.output_device.currentData() or "",
                       "audio_mode": "speaker" if speaker else "headset" if self.mode_headset.isChecked() else "auto",
                       # every mode offered here lets the learner interrupt, as its label says
                       "barge_in": True, "stt_model": self.stt_model.currentData() or s.speech.stt_model,
                       "stt_device": self.stt_device.currentData() or "auto",
                       "tts_voice": self.tts_voice.currentData() or s.speech.tts_voice,
                       "speaking_rate": pace.speaking_rate, "thinking_ms": pace.thinking_ms,
                       "adapt_thinking": pace.adapt_thinking},
            "llm": {"backend": self.backend.currentData() or "",
                    "anthropic_model": self.claude_model.currentText().strip() or s.llm.anthropic_model,
                    "local_model": self.local_model.currentData() or s.llm.local_model,
                    "fallback_to_local": self.fallback.isChecked(), "local_server_url": self.server_url.text().strip(),
                    "local_server_model": self.server_model.text().strip()}}
        return self.edit.change(values)

    def save(self) -> None:
        change = self.changes()
        key = self.key_edit.text().strip()
        self.save_button.setEnabled(False)

        def store() -> bool:
            # The key first: it may block on a keyring prompt (hence a worker). Without a
            # keyring it is kept for this run, and the other changes are saved all the same.
            in_keyring = self.services.keys.set(key) if key else True
            self.services.settings_store.update(change)  # saved once, every window told
            return in_keyring

        def done(in_keyring: bool) -> None:
            if in_keyring:
                self.accept()
                return
            # Saved, but the learner must read how to keep the key: the window stays open.
            self.edit = FormEdit(self.settings)
            self.save_button.setEnabled(True)
            self.tabs.setCurrentIndex(2)
            self.key_field.kept_for_this_run()

        def failed(exc: BaseException) -> None:
            self.save_button.setEnabled(True)
            if key:
                self.tabs.setCurrentIndex(2)
            self.key_status.setText(self.tr("Not saved: %1").replace("%1", error_text(exc)))

        run_task(store, on_done=done, on_error=failed, context=self)
