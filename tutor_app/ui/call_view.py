"""The call screen: one big call button, the live transcript, the microphone level, the
tutor's state, the learner's current emotion, "off the record", and a text fallback.

Keyboard: Space starts a call or mutes/unmutes during one; Esc ends it. Neither fires
while the learner types in the text box (Space types a space, Esc leaves the box).
Typing with no call running starts a text chat: the microphone stays off.
"""
from __future__ import annotations

import html
import time

from PySide6.QtCore import QCoreApplication, QLocale, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tutor_app.call import events as ev
from tutor_app.memory.storage.schema import MAX_MESSAGE_BYTES
from tutor_app.ui.bridge import CallBridge
from tutor_app.ui.emotion_words import feeling
from tutor_app.ui.level_meter import LevelMeter
from tutor_app.ui.theme import icon
from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP
from tutor_app.ui.transcript import TranscriptView
from tutor_app.ui.translation import feeling_words

IDLE, STARTING, IN_CALL, ENDING = "idle", "starting", "in-call", "ending"
TEXT_BOX_MAX_CHARS = 4 * MAX_MESSAGE_BYTES
STATE_TEXT = {
    ev.LISTENING: QT_TRANSLATE_NOOP("CallView", "Listening"), ev.THINKING: QT_TRANSLATE_NOOP("CallView", "Thinking…"),
    ev.SPEAKING: QT_TRANSLATE_NOOP("CallView", "Speaking"), ev.PAUSED: QT_TRANSLATE_NOOP("CallView", "Muted"),
    ev.ENDED: QT_TRANSLATE_NOOP("CallView", "Call ended"),
}
EMPTY_HINT = QT_TRANSLATE_NOOP("CallView", "Press the green button (or Space) and say hello.\n"
                                           "Your tutor listens, answers out loud and gently corrects you.\n"
                                           "Can't talk right now? Type below: a text chat, the microphone stays off.")
GUARDRAIL_NOTES = {"checkin": QT_TRANSLATE_NOOP("CallView", "a caring check-in"),
                   "crisis": QT_TRANSLATE_NOOP("CallView", "safety message: help is available")}
# tutor/heard.py NOT_HEARD: spoken in English (the tutor's voice is English), shown in the
# interface's language once said.
NOT_HEARD = QT_TRANSLATE_NOOP("CallView", "I didn't catch that - try again in English, or type it.")


class CallView(QWidget):
    problemRaised = Signal(str, str)  # kind, message -> the window's banner
    reportReady = Signal(str, object)  # session id, report dict
    callStarting = Signal()  # the learner asked for a call
    modelsRequested = Signal()  # the "Models" link by the tutor's name

    def __init__(self, bridge: CallBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.phase = IDLE
        self.muted = False
        self.ready = True  # False while models warm up (a call can still be started)
        self.blocked = ""
        self.memory_paused = False
        self.text_only = False  # the running call is a typed chat: no microphone, no voice
        self._started_at = 0.0
        self._mic_missing = False  # no usable microphone for this call (typed turns only)
        self._mic_paused = False  # the microphone was lost mid-call (waiting for it)
        self._fallback = False  # this call's cloud model did not answer: the offline tutor did
        self._tutor_info = None  # llm.active.ActiveTutor, read at start, per call and on a settings change
        self._build()
        self._wire()
        self.refresh_tutor()
        self._set_phase(IDLE)

    # -- layout ---------------------------------------------------------------------
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(24, 18, 24, 18)
        outer.setSpacing(14)

        header = QFrame()
        header.setObjectName("CallHeader")
        top = QHBoxLayout(header)
        top.setContentsMargins(18, 14, 18, 14)
        top.setSpacing(16)
        self.call_button = QPushButton()
        self.call_button.setObjectName("CallButton")
        self.call_button.setFixedSize(64, 64)
        self.call_button.setIconSize(QSize(28, 28))
        self.call_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.call_button.clicked.connect(self.toggle_call)
        top.addWidget(self.call_button)

        status = QVBoxLayout()
        status.setSpacing(6)
        line = QHBoxLayout()
        line.setSpacing(10)
        self.title = QLabel()
        self.title.setObjectName("CallTitle")
        self.state_label = QLabel()
        self.state_label.setObjectName("StateLabel")
        self.state_label.setAccessibleName(self.tr("Tutor state"))
        self.emotion_chip = QLabel()
        self.emotion_chip.setObjectName("EmotionChip")
        self.emotion_chip.setAccessibleName(self.tr("Your current emotion"))
        self.emotion_chip.hide()
        self.timer_label = QLabel()
        self.timer_label.setObjectName("Muted")
        line.addWidget(self.title)
        line.addWidget(self.state_label)
        line.addWidget(self.emotion_chip)
        line.addStretch(1)
        line.addWidget(self.timer_label)
        status.addLayout(line)
        meter_row = QHBoxLayout()
        meter_row.setSpacing(10)
        self.mute_button = QToolButton()
        self.mute_button.setObjectName("MuteButton")
        self.mute_button.setCheckable(True)
        self.mute_button.setIconSize(QSize(18, 18))
        self.mute_button.setAccessibleName(self.tr("Mute microphone"))
        self.mute_button.toggled.connect(self.set_muted)
        self.meter = LevelMeter()
        self.meter.setFixedHeight(10)
        self.mic_label = QLabel()  # listening / muted / not available, by the meter it explains
        self.mic_label.setObjectName("Muted")
        self.mic_label.setWordWrap(True)
        self.mic_label.setAccessibleName(self.tr("Microphone"))
        meter_row.addWidget(self.mute_button)
        meter_row.addWidget(self.meter, 1)
        meter_row.addWidget(self.mic_label)
        status.addLayout(meter_row)
        # Who answers and whether the microphone hears: neutral text that wraps (no fixed widths).
        who_row = QHBoxLayout()
        who_row.setSpacing(10)
        self.tutor_label = QLabel()
        self.tutor_label.setObjectName("Muted")
        self.tutor_label.setWordWrap(True)
        self.tutor_label.setAccessibleName(self.tr("Tutor model"))
        self.tutor_label.setTextFormat(Qt.TextFormat.RichText)
        self.tutor_label.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                                 | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.tutor_label.linkActivated.connect(lambda _link: self.modelsRequested.emit())
        who_row.addWidget(self.tutor_label, 1)
        status.addLayout(who_row)
        self.hint = QLabel()
        self.hint.setObjectName("Muted")
        self.hint.setWordWrap(True)  # a long hint wraps: the call page fits an 800 px window
        status.addWidget(self.hint)
        top.addLayout(status, 1)

        self.off_record = QCheckBox(self.tr("Off the record"))
        self.off_record.setObjectName("OffRecord")
        self.off_record.setAccessibleName(self.tr("Off the record: nothing from this call is remembered"))
        self.off_record.setToolTip(self.tr("Nothing from this call goes into your tutor's memory."))
        self.off_record.toggled.connect(lambda _on: self._set_phase(IDLE) if self.phase == IDLE else None)
        top.addWidget(self.off_record, 0, Qt.AlignmentFlag.AlignTop)
        outer.addWidget(header)

        self.transcript = TranscriptView()
        self.transcript.set_empty_text(QCoreApplication.translate("CallView", EMPTY_HINT))
        outer.addWidget(self.transcript, 1)

        typing = QFrame()
        typing.setObjectName("TypeBar")
        row = QHBoxLayout(typing)
        row.setContentsMargins(6, 6, 6, 6)
        self.text_input = QLineEdit()
        self.text_input.setObjectName("TextInput")
        # Qt cuts a paste at maxLength (32767 by default): far above the turn's limit, so an
        # overlong paste is kept whole and refused by send_typed instead of cut silently.
        self.text_input.setMaxLength(TEXT_BOX_MAX_CHARS)
        self.text_input.setAccessibleName(self.tr("Type a message"))
        self.text_input.returnPressed.connect(self.send_typed)
        self.send_button = QToolButton()
        self.send_button.setIcon(icon("send", "accent", 20))
        self.send_button.setAccessibleName(self.tr("Send message"))
        self.send_button.setToolTip(self.tr("Send (Enter)"))
        self.send_button.clicked.connect(self.send_typed)
        row.addWidget(self.text_input, 1)
        row.addWidget(self.send_button)
        outer.addWidget(typing)

        self._clock = QTimer(self)
        self._clock.setInterval(1000)
        self._clock.timeout.connect(self._tick)

        space = QShortcut(QKeySequence(Qt.Key.Key_Space), self)
        space.setContext(Qt.ShortcutContext.WindowShortcut)
        space.activated.connect(self._space)
        esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        esc.setContext(Qt.ShortcutContext.WindowShortcut)
        esc.activated.connect(self._escape)

    def _wire(self) -> None:
        b = self.bridge
        b.callStarted.connect(self._on_started)
        b.callFailed.connect(self._on_failed)
        b.stateChanged.connect(self._on_state)
        b.micLevel.connect(self.meter.set_level)
        b.speechStarted.connect(self.transcript.learner_speaking)
        b.userUtterance.connect(self._on_utterance)
        b.emotionRead.connect(self._on_emotion)
        b.tutorSentence.connect(self.transcript.tutor_sentence)
        b.tutorTurnDone.connect(self._on_turn_done)
        b.problem.connect(self._on_problem)
        b.callAborted.connect(self._on_aborted)
        b.callEnded.connect(self._on_ended)
        b.reportReady.connect(self._on_report)

    def set_memory_paused(self, paused: bool) -> None:
        self.memory_paused = paused
        if self.phase == IDLE:
            self._set_phase(IDLE)

    def set_ready(self, ready: bool, blocked: str = "") -> None:
        """`blocked`: why calls cannot work yet (e.g. models missing), shown instead of the hint."""
        self.ready = ready
        self.blocked = blocked
        if self.phase == IDLE:
            self._set_phase(IDLE)

    # -- actions ----------------------------------------------------------------------
    def toggle_call(self) -> None:
        if self.phase == IDLE:
            self.start_call()
        elif self.phase == IN_CALL:
            self.end_call()

    def start_call(self, text_only: bool = False, greet: bool = True) -> None:
        """`text_only`: a typed chat; the microphone is not opened (nor the voice).
        `greet`: the tutor speaks first (never in a text chat)."""
        if self.phase != IDLE:
            return
        self.transcript.clear()
        self.emotion_chip.hide()
        self.text_only = text_only
        self._mic_missing = self._mic_paused = self._fallback = False
        self.refresh_tutor()  # a key or model chosen since: read once per call, not per event
        self._set_phase(STARTING)
        self.callStarting.emit()
        self.bridge.start_call(self.off_record.isChecked(), text_only=text_only, greet=greet and not text_only)

    def end_call(self) -> None:
        if self.phase in (IN_CALL, STARTING):
            self._set_phase(ENDING)
            self.bridge.end_call()

    def set_muted(self, muted: bool) -> None:
        self.muted = bool(muted)
        if self.mute_button.isChecked() != self.muted:
            self.mute_button.setChecked(self.muted)
        self.mute_button.setIcon(icon("mic-off" if self.muted else "mic", "bad" if self.muted else "text", 18))
        self.mute_button.setToolTip(self.tr("Unmute (Space)") if self.muted else self.tr("Mute (Space)"))
        self.meter.set_active(self.phase == IN_CALL and not self.muted and not self.text_only)
        self._show_mic()
        if self.phase == IN_CALL and not self.text_only:
            self.bridge.set_muted(self.muted)

    def send_typed(self) -> None:
        text = self.text_input.text().strip()
        if not text:
            return
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_MESSAGE_BYTES:  # the limit of `tutor-app chat`: said in one line, the text stays
            locale = QLocale()
            self.problemRaised.emit("other", self.tr(
                "This message is too long to send (%1 bytes; the limit is %2). It is still in the box: "
                "shorten it and send it again.").replace("%1", locale.toString(size))
                .replace("%2", locale.toString(MAX_MESSAGE_BYTES)))
            return
        self.text_input.clear()
        if self.phase == IDLE:
            self.start_call(text_only=True)  # a learner who types cannot talk now: never listened to
        self.bridge.send_text(text)  # in a spoken call: a typed turn of it

    def _space(self) -> None:
        if self.text_input.hasFocus():
            return  # typing: the box takes its space
        if self.phase == IDLE:
            self.start_call()
        elif self.phase == IN_CALL and not self.text_only:
            self.set_muted(not self.muted)

    def _escape(self) -> None:
        if self.text_input.hasFocus():
            self.setFocus()  # typing: Esc leaves the box; the next Esc ends the call
        else:
            self.end_call()

    # -- events -----------------------------------------------------------------------
    def _on_started(self, _session_id: str) -> None:
        if self.phase in (STARTING,):
            self._set_phase(IN_CALL)
            if self.muted:
                self.bridge.set_muted(True)

    def _on_failed(self, message: str) -> None:
        self._set_phase(IDLE)
        self.problemRaised.emit("other", self.tr("The call could not start: %1").replace("%1", message))

    def _on_state(self, state: str) -> None:
        self._mic_paused = state == ev.PAUSED
        self._show_mic()
        self.state_label.setText(QCoreApplication.translate("CallView", STATE_TEXT[state]) if state in STATE_TEXT
                                 else state.capitalize())
        self.state_label.setProperty("state", state)
        self.state_label.style().unpolish(self.state_label)
        self.state_label.style().polish(self.state_label)

    def _on_utterance(self, event: ev.UserUtterance) -> None:
        if event.text.strip():
            self.transcript.learner_said(event.text.strip())
        else:
            self.transcript.learner_silent()

    def _on_emotion(self, label: str, score: float) -> None:
        # In words about the learner ("You sound unsure"), never the raw label: a red
        # "disapproval" after their sentence reads as the tutor's verdict (ui/emotion_words.py).
        felt = feeling(label)
        title, phrase = feeling_words(felt)
        percent = QLocale().toString(round(score * 100)) + "%"
        self.emotion_chip.setText(title)
        self.emotion_chip.setToolTip(self.tr("%1. The emotion reader heard: %2 (%3)").replace("%1", title)
                                     .replace("%2", label).replace("%3", percent))
        self.emotion_chip.setAccessibleDescription(f"{phrase} ({label}, {percent})")
        self.emotion_chip.setStyleSheet(f"background: {felt.colour};")
        self.emotion_chip.show()

    def _on_turn_done(self, event: ev.TutorTurnDone) -> None:
        note = (self.tr("not understood: nothing was kept") if event.not_heard
                else QCoreApplication.translate("CallView", GUARDRAIL_NOTES[event.guardrail])
                if event.guardrail in GUARDRAIL_NOTES else "")
        reply = event.reply
        if event.not_heard and reply.strip() == NOT_HEARD:
            reply = QCoreApplication.translate("CallView", NOT_HEARD)
        self.transcript.tutor_done(reply, event.interrupted, note)

    def _on_problem(self, event: ev.Problem) -> None:
        if event.kind == "no-microphone":
            self._mic_missing = True
            self._show_mic()
        elif event.kind == "offline" and not self._fallback:
            self._fallback = True
            self._show_tutor()
        self.problemRaised.emit(event.kind, event.message)
        if event.fatal and self.phase in (STARTING, IN_CALL):
            # The microphone is gone for good: the call goes on typed until the learner
            # ends it (and its report follows), as the message says.
            self.set_muted(False)
            self.text_only = True
            self._show_input()

    def _on_aborted(self, event: ev.CallAborted) -> None:
        # The call ends by itself (CallEnded follows): one message, in the learner's language.
        if self.phase in (STARTING, IN_CALL):
            self._set_phase(ENDING)
        self.problemRaised.emit("other", self.tr("The call stopped because something went wrong on our side (%1). "
                                                 "You can start a new call.").replace("%1", f"{event.where}: {event.error}"))

    def _on_report(self, session_id: str, report: dict) -> None:
        self.reportReady.emit(session_id, report)

    def _on_ended(self, _session_id: str) -> None:
        self._set_phase(IDLE)
        self._on_state(ev.ENDED)

    # -- presentation -----------------------------------------------------------------
    def _set_phase(self, phase: str) -> None:
        self.phase = phase
        if phase == IDLE:
            self.text_only = False
        in_call = phase == IN_CALL
        if not in_call:
            self.emotion_chip.hide()  # "how you sound" is stale once the call is ending
        self.call_button.setProperty("phase", "end" if phase in (IN_CALL, STARTING, ENDING) else "start")
        self.call_button.style().unpolish(self.call_button)
        self.call_button.style().polish(self.call_button)
        self.call_button.setIcon(icon("phone" if phase == IDLE else "phone-off", "#ffffff", 28))
        self.call_button.setEnabled(phase in (IDLE, IN_CALL, STARTING))
        name = {IDLE: self.tr("Start call"), STARTING: self.tr("Cancel call"), IN_CALL: self.tr("End call"),
                ENDING: self.tr("Ending call")}[phase]
        self.call_button.setAccessibleName(name)
        self.call_button.setToolTip(f"{name} ({'Space' if phase == IDLE else 'Esc'})")
        idle_title = (self.tr("Almost ready") if self.blocked else self.tr("Ready when you are") if self.ready
                      else self.tr("Getting ready…"))
        self.title.setText({IDLE: idle_title,
                            STARTING: self.tr("Connecting…") if self.ready else self.tr("Loading the tutor…"),
                            IN_CALL: self.tr("In call"), ENDING: self.tr("Ending the call…")}[phase])
        self.off_record.setEnabled(phase == IDLE)
        if phase == IDLE:
            self.state_label.setText("")
            if self.blocked:
                self.hint.setText(self.blocked)
            elif not self.ready:
                self.hint.setText(self.tr("Loading the speech and tutor models. You can start now; "
                                          "the tutor answers once they are loaded."))
            else:
                memory = (self.tr("this call will not be remembered") if self.off_record.isChecked()
                          else self.tr("memory is paused") if self.memory_paused
                          else self.tr("your tutor remembers what you share"))
                self.hint.setText(self.tr("Space: start · Esc: end · %1").replace("%1", memory))
            self._clock.stop()
            self.timer_label.setText("")
        elif phase == IN_CALL:
            self._started_at = time.monotonic()
            self._clock.start()
            self._tick()
        self._show_input()
        if phase != IN_CALL and self.muted:
            self.set_muted(False)
        elif self.mute_button.icon().isNull():
            self.set_muted(self.muted)
        self._show_tutor()
        self._show_mic()

    def refresh_tutor(self) -> None:
        """Read again which tutor answers (it may ask the OS keyring: not on every event)."""
        self._tutor_info = self.bridge.tutor()
        self._show_tutor()

    def _show_tutor(self) -> None:
        """Which tutor answers (the cloud model's name or the offline tutor) and a link to
        the Models page; after a fallback in this call, that the offline tutor took over."""
        info = self._tutor_info
        if info is None:
            self.tutor_label.hide()
            return
        label = html.escape(str(info.label))
        if self._fallback and self.phase != IDLE and not getattr(info, "offline", True):
            label += self.tr(" · the offline tutor is answering (connection slow)")
        self.tutor_label.setText(f'{label} · <a href="models">{self.tr("Models")}</a>')
        self.tutor_label.setToolTip(str(getattr(info, "detail", "")))
        self.tutor_label.setAccessibleDescription(f"{info.label}. {getattr(info, 'detail', '')}")
        self.tutor_label.show()

    def _show_mic(self) -> None:
        """The microphone's state in a call: listening, muted or not available."""
        if self.phase not in (IN_CALL, STARTING):
            self.mic_label.hide()
            return
        state = (self.tr("off (text chat)") if self.text_only
                 else self.tr("not available") if self._mic_missing or self._mic_paused
                 else self.tr("muted") if self.muted
                 else self.tr("listening") if self.phase == IN_CALL else self.tr("starting…"))
        self.mic_label.setText(self.tr("Mic: %1").replace("%1", state))
        self.mic_label.setAccessibleDescription(self.tr("Microphone: %1").replace("%1", state))
        self.mic_label.show()

    def _show_input(self) -> None:
        """What listens and what typing does: a spoken call, or a text chat (microphone off)."""
        in_call = self.phase == IN_CALL
        listening = in_call and not self.text_only
        self.mute_button.setEnabled(listening)
        self.meter.set_active(listening and not self.muted)
        self.text_input.setPlaceholderText(self.tr("Type a message: it is added to the call") if self.phase != IDLE
                                           and not self.text_only else
                                           self.tr("Type a message: a text chat, the microphone stays off"))
        if in_call:
            self.hint.setText((self.tr("Text chat: the microphone is off · Esc: end") if self.text_only
                               else self.tr("Space: mute / unmute · Esc: end call"))
                              + (self.tr(" · off the record") if self.off_record.isChecked() else ""))

    def _tick(self) -> None:
        secs = int(time.monotonic() - self._started_at)
        self.timer_label.setText(f"{secs // 60:d}:{secs % 60:02d}")
