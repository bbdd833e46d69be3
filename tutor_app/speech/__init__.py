"""Speech: STT (faster-whisper), TTS (Piper), VAD (Silero), audio I/O."""
