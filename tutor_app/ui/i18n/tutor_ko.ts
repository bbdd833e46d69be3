<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ko_KR">
  <context>
    <name>ApiKeyField</name>
    <message>
      <source>Anthropic API key</source>
      <translation>Anthropic API 키</translation>
    </message>
    <message>
      <source>Test key</source>
      <translation>키 테스트</translation>
    </message>
    <message>
      <source>Remove</source>
      <translation>삭제</translation>
    </message>
    <message>
      <source>Remove the stored API key</source>
      <translation>저장된 API 키 삭제</translation>
    </message>
    <message>
      <source>•••••••••••• (stored in the keyring; type to replace)</source>
      <translation>•••••••••••• (키링에 저장됨. 바꾸려면 입력하세요)</translation>
    </message>
    <message>
      <source>A key is stored in the system keyring.</source>
      <translation>시스템 키링에 키가 저장돼 있어요.</translation>
    </message>
    <message>
      <source>•••••••••••• (kept until Tutor closes; type to replace)</source>
      <translation>•••••••••••• (Tutor를 닫을 때까지 유지. 바꾸려면 입력하세요)</translation>
    </message>
    <message>
      <source>Using the key you entered. %1</source>
      <translation>입력한 키를 쓰고 있어요. %1</translation>
    </message>
    <message>
      <source>Using the key from the ANTHROPIC_API_KEY environment variable.</source>
      <translation>ANTHROPIC_API_KEY 환경 변수의 키를 쓰고 있어요.</translation>
    </message>
    <message>
      <source>No key: the tutor runs offline on this computer.</source>
      <translation>키 없음: 튜터가 이 컴퓨터에서 오프라인으로 작동해요.</translation>
    </message>
    <message>
      <source>Testing the key…</source>
      <translation>키 테스트 중…</translation>
    </message>
    <message>
      <source>no key to test: paste one first</source>
      <translation>테스트할 키가 없어요. 먼저 키를 붙여 넣으세요</translation>
    </message>
    <message>
      <source>Key test failed: %1</source>
      <translation>키 테스트 실패: %1</translation>
    </message>
    <message>
      <source>Settings saved. %1</source>
      <translation>설정을 저장했어요. %1</translation>
    </message>
    <message>
      <source>The key works (%1).</source>
      <translation>키가 작동해요 (%1).</translation>
    </message>
  </context>
  <context>
    <name>AudioTest</name>
    <message>
      <source>recording: say something</source>
      <translation>녹음 중: 뭐라도 말해 보세요</translation>
    </message>
    <message>
      <source>playing it back</source>
      <translation>다시 재생 중</translation>
    </message>
    <message>
      <source>done</source>
      <translation>완료</translation>
    </message>
    <message>
      <source>The microphone recorded silence: check that it is not muted.</source>
      <translation>마이크에 아무 소리도 녹음되지 않았어요. 음소거돼 있지 않은지 확인하세요.</translation>
    </message>
    <message>
      <source>Done. Did you hear yourself? If not, pick another speaker.</source>
      <translation>완료. 내 목소리가 들렸나요? 안 들렸다면 다른 스피커를 고르세요.</translation>
    </message>
  </context>
  <context>
    <name>Banner</name>
    <message>
      <source>No microphone</source>
      <translation>마이크 없음</translation>
    </message>
    <message>
      <source>No speaker</source>
      <translation>스피커 없음</translation>
    </message>
    <message>
      <source>Audio device lost</source>
      <translation>오디오 장치 연결 끊김</translation>
    </message>
    <message>
      <source>API key rejected</source>
      <translation>API 키가 거부됐어요</translation>
    </message>
    <message>
      <source>Offline: using the local tutor model</source>
      <translation>오프라인: 이 컴퓨터의 튜터 모델을 써요</translation>
    </message>
    <message>
      <source>Tutor model problem</source>
      <translation>튜터 모델 문제</translation>
    </message>
    <message>
      <source>Voice problem</source>
      <translation>음성 문제</translation>
    </message>
    <message>
      <source>Models missing</source>
      <translation>모델 없음</translation>
    </message>
    <message>
      <source>Notice</source>
      <translation>알림</translation>
    </message>
    <message>
      <source>Dismiss notice</source>
      <translation>알림 닫기</translation>
    </message>
  </context>
  <context>
    <name>Bubble</name>
    <message>
      <source>You</source>
      <translation>나</translation>
    </message>
    <message>
      <source>Tutor</source>
      <translation>튜터</translation>
    </message>
    <message>
      <source>interrupted: you started speaking</source>
      <translation>중단됨: 내가 말하기 시작했어요</translation>
    </message>
  </context>
  <context>
    <name>CallBridge</name>
    <message>
      <source>live calls are not available in this build</source>
      <translation>이 버전에서는 음성 통화를 쓸 수 없어요</translation>
    </message>
  </context>
  <context>
    <name>CallView</name>
    <message>
      <source>not understood: nothing was kept</source>
      <translation>알아듣지 못했어요: 아무것도 남기지 않았어요</translation>
    </message>
    <message>
      <source>Listening</source>
      <translation>듣는 중</translation>
    </message>
    <message>
      <source>Thinking…</source>
      <translation>생각 중…</translation>
    </message>
    <message>
      <source>Speaking</source>
      <translation>말하는 중</translation>
    </message>
    <message>
      <source>Muted</source>
      <translation>음소거</translation>
    </message>
    <message>
      <source>Call ended</source>
      <translation>통화 종료</translation>
    </message>
    <message>
      <source>Press the green button (or Space) and say hello.
Your tutor listens, answers out loud and gently corrects you.
Can't talk right now? Type below: a text chat, the microphone stays off.</source>
      <translation>초록 버튼(또는 Space)을 누르고 인사해 보세요.
튜터가 듣고, 소리 내어 대답하고, 부드럽게 고쳐 줘요.
지금 말하기 어렵나요? 아래에 입력하세요. 문자 대화라 마이크는 꺼져 있어요.</translation>
    </message>
    <message>
      <source>a caring check-in</source>
      <translation>안부 확인</translation>
    </message>
    <message>
      <source>safety message: help is available</source>
      <translation>안전 안내: 도움을 받을 수 있어요</translation>
    </message>
    <message>
      <source>I didn't catch that - try again in English, or type it.</source>
      <translation>잘 못 알아들었어요. 영어로 다시 말하거나 입력해 주세요.</translation>
    </message>
    <message>
      <source>Tutor state</source>
      <translation>튜터 상태</translation>
    </message>
    <message>
      <source>Your current emotion</source>
      <translation>지금 내 감정</translation>
    </message>
    <message>
      <source>Mute microphone</source>
      <translation>마이크 음소거</translation>
    </message>
    <message>
      <source>Microphone</source>
      <translation>마이크</translation>
    </message>
    <message>
      <source>Tutor model</source>
      <translation>튜터 모델</translation>
    </message>
    <message>
      <source>Off the record</source>
      <translation>기록하지 않기</translation>
    </message>
    <message>
      <source>Off the record: nothing from this call is remembered</source>
      <translation>기록하지 않기: 이 통화 내용은 기억하지 않아요</translation>
    </message>
    <message>
      <source>Nothing from this call goes into your tutor's memory.</source>
      <translation>이 통화 내용은 튜터의 기억에 남지 않아요.</translation>
    </message>
    <message>
      <source>Type a message</source>
      <translation>메시지 입력</translation>
    </message>
    <message>
      <source>Send message</source>
      <translation>메시지 보내기</translation>
    </message>
    <message>
      <source>Send (Enter)</source>
      <translation>보내기 (Enter)</translation>
    </message>
    <message>
      <source>Unmute (Space)</source>
      <translation>음소거 해제 (Space)</translation>
    </message>
    <message>
      <source>Mute (Space)</source>
      <translation>음소거 (Space)</translation>
    </message>
    <message>
      <source>The call could not start: %1</source>
      <translation>통화를 시작하지 못했어요: %1</translation>
    </message>
    <message>
      <source>The call stopped because something went wrong on our side (%1). You can start a new call.</source>
      <translation>저희 쪽에 문제가 생겨 통화가 끝났어요 (%1). 새 통화를 시작할 수 있어요.</translation>
    </message>
    <message>
      <source>%1. The emotion reader heard: %2 (%3)</source>
      <translation>%1. 감정 인식 결과: %2 (%3)</translation>
    </message>
    <message>
      <source>Start call</source>
      <translation>통화 시작</translation>
    </message>
    <message>
      <source>Cancel call</source>
      <translation>통화 취소</translation>
    </message>
    <message>
      <source>End call</source>
      <translation>통화 종료</translation>
    </message>
    <message>
      <source>Ending call</source>
      <translation>통화 끝내는 중</translation>
    </message>
    <message>
      <source>Almost ready</source>
      <translation>거의 준비됐어요</translation>
    </message>
    <message>
      <source>Ready when you are</source>
      <translation>준비됐어요</translation>
    </message>
    <message>
      <source>Getting ready…</source>
      <translation>준비 중…</translation>
    </message>
    <message>
      <source>Connecting…</source>
      <translation>연결 중…</translation>
    </message>
    <message>
      <source>Loading the tutor…</source>
      <translation>튜터 불러오는 중…</translation>
    </message>
    <message>
      <source>In call</source>
      <translation>통화 중</translation>
    </message>
    <message>
      <source>Ending the call…</source>
      <translation>통화 끝내는 중…</translation>
    </message>
    <message>
      <source>Loading the speech and tutor models. You can start now; the tutor answers once they are loaded.</source>
      <translation>음성 모델과 튜터 모델을 불러오는 중이에요. 지금 시작해도 돼요. 다 불러오면 튜터가 대답해요.</translation>
    </message>
    <message>
      <source>this call will not be remembered</source>
      <translation>이 통화는 기억하지 않아요</translation>
    </message>
    <message>
      <source>memory is paused</source>
      <translation>기억 일시 중지됨</translation>
    </message>
    <message>
      <source>your tutor remembers what you share</source>
      <translation>튜터가 나눈 이야기를 기억해요</translation>
    </message>
    <message>
      <source>Space: start · Esc: end · %1</source>
      <translation>Space: 시작 · Esc: 종료 · %1</translation>
    </message>
    <message>
      <source> · the offline tutor is answering (connection slow)</source>
      <translation> · 연결이 느려 오프라인 튜터가 대답하고 있어요</translation>
    </message>
    <message>
      <source>off (text chat)</source>
      <translation>꺼짐 (문자 대화)</translation>
    </message>
    <message>
      <source>not available</source>
      <translation>사용할 수 없음</translation>
    </message>
    <message>
      <source>muted</source>
      <translation>음소거됨</translation>
    </message>
    <message>
      <source>listening</source>
      <translation>듣는 중</translation>
    </message>
    <message>
      <source>starting…</source>
      <translation>시작하는 중…</translation>
    </message>
    <message>
      <source>Mic: %1</source>
      <translation>마이크: %1</translation>
    </message>
    <message>
      <source>Microphone: %1</source>
      <translation>마이크: %1</translation>
    </message>
    <message>
      <source>Type a message: it is added to the call</source>
      <translation>메시지를 입력하세요. 통화에 함께 들어가요</translation>
    </message>
    <message>
      <source>Type a message: a text chat, the microphone stays off</source>
      <translation>메시지를 입력하세요. 문자 대화라 마이크는 꺼져 있어요</translation>
    </message>
    <message>
      <source>Text chat: the microphone is off · Esc: end</source>
      <translation>문자 대화: 마이크 꺼짐 · Esc: 종료</translation>
    </message>
    <message>
      <source>Space: mute / unmute · Esc: end call</source>
      <translation>Space: 음소거 / 해제 · Esc: 통화 종료</translation>
    </message>
    <message>
      <source> · off the record</source>
      <translation> · 기록하지 않음</translation>
    </message>
    <message>
      <source>This message is too long to send (%1 bytes; the limit is %2). It is still in the box: shorten it and send it again.</source>
      <translation>메시지가 너무 길어서 보낼 수 없어요 (%1바이트, 한도 %2바이트). 입력란에 그대로 있으니 줄여서 다시 보내 주세요.</translation>
    </message>
  </context>
  <context>
    <name>Charts</name>
    <message>
      <source>Emotion over the call</source>
      <translation>통화 중 감정 변화</translation>
    </message>
    <message>
      <source>no turns</source>
      <translation>대화 없음</translation>
    </message>
    <message>
      <source>What the emotion reader heard in each turn:</source>
      <translation>대화마다 감정 인식 결과:</translation>
    </message>
    <message>
      <source>No emotion readings in this call</source>
      <translation>이 통화에는 감정 인식 결과가 없어요</translation>
    </message>
    <message>
      <source>Progress over calls</source>
      <translation>통화별 발전</translation>
    </message>
    <message>
      <source>%1: %2 wpm, %3 min</source>
      <translation>%1: 분당 %2단어, %3분</translation>
    </message>
    <message>
      <source>Your progress appears here after your first call</source>
      <translation>첫 통화를 마치면 여기에 발전 기록이 보여요</translation>
    </message>
    <message>
      <source>%1m</source>
      <translation>%1분</translation>
    </message>
  </context>
  <context>
    <name>Dates</name>
    <message>
      <source>dd MMM</source>
      <translation>M월 d일</translation>
    </message>
    <message>
      <source>dd MMM yyyy</source>
      <translation>yyyy년 M월 d일</translation>
    </message>
    <message>
      <source>ddd dd MMM, HH:mm</source>
      <translation>M월 d일 (ddd) HH:mm</translation>
    </message>
  </context>
  <context>
    <name>Feeling</name>
    <message>
      <source>you sound happy</source>
      <translation>즐거워 보여요</translation>
    </message>
    <message>
      <source>you sound curious</source>
      <translation>궁금해 보여요</translation>
    </message>
    <message>
      <source>you sound unsure</source>
      <translation>자신 없어 보여요</translation>
    </message>
    <message>
      <source>you sound upset</source>
      <translation>속상해 보여요</translation>
    </message>
    <message>
      <source>you sound a bit down</source>
      <translation>조금 우울해 보여요</translation>
    </message>
    <message>
      <source>you sound calm</source>
      <translation>차분해 보여요</translation>
    </message>
  </context>
  <context>
    <name>HistoryView</name>
    <message>
      <source>Progress</source>
      <translation>발전 기록</translation>
    </message>
    <message>
      <source>Bars: how long you spoke. Line: words per minute.</source>
      <translation>막대: 말한 시간. 선: 분당 단어 수.</translation>
    </message>
    <message>
      <source>Past calls</source>
      <translation>지난 통화</translation>
    </message>
    <message>
      <source>%1  ·  %2 min  ·  %3 wpm</source>
      <translation>%1  ·  %2  ·  분당 %3단어</translation>
    </message>
  </context>
  <context>
    <name>LevelMeter</name>
    <message>
      <source>Microphone level</source>
      <translation>마이크 음량</translation>
    </message>
  </context>
  <context>
    <name>MainWindow</name>
    <message>
      <source>Call</source>
      <translation>통화</translation>
    </message>
    <message>
      <source>Progress</source>
      <translation>발전 기록</translation>
    </message>
    <message>
      <source>Practice</source>
      <translation>연습</translation>
    </message>
    <message>
      <source>Memory</source>
      <translation>기억</translation>
    </message>
    <message>
      <source>Models</source>
      <translation>모델</translation>
    </message>
    <message>
      <source>English speaking practice</source>
      <translation>영어 말하기 연습</translation>
    </message>
    <message>
      <source>Getting ready…</source>
      <translation>준비 중…</translation>
    </message>
    <message>
      <source>Loading models</source>
      <translation>모델 불러오는 중</translation>
    </message>
    <message>
      <source>Settings</source>
      <translation>설정</translation>
    </message>
    <message>
      <source>Open settings</source>
      <translation>설정 열기</translation>
    </message>
    <message>
      <source>Open models</source>
      <translation>모델 열기</translation>
    </message>
    <message>
      <source>Profile: %1</source>
      <translation>프로필: %1</translation>
    </message>
    <message>
      <source> · memory paused</source>
      <translation> · 기억 일시 중지됨</translation>
    </message>
    <message>
      <source>Getting ready: %1…</source>
      <translation>준비 중: %1…</translation>
    </message>
    <message>
      <source>Ready</source>
      <translation>준비 완료</translation>
    </message>
    <message>
      <source>Install the missing models (Models page) to talk with your tutor.</source>
      <translation>튜터와 이야기하려면 없는 모델을 설치하세요 (모델 페이지).</translation>
    </message>
    <message>
      <source>Models missing</source>
      <translation>모델 없음</translation>
    </message>
    <message>
      <source>install %1 to start talking. It works offline and takes a minute.</source>
      <translation>대화를 시작하려면 %1을(를) 설치하세요. 오프라인으로 작동하고 1분쯤 걸려요.</translation>
    </message>
    <message>
      <source>Some models are missing</source>
      <translation>일부 모델이 없어요</translation>
    </message>
    <message>
      <source>%1: the tutor works without them, with less to offer.</source>
      <translation>%1: 없어도 튜터는 작동하지만 기능이 줄어요.</translation>
    </message>
    <message>
      <source>Ready, with problems</source>
      <translation>준비 완료 (문제 있음)</translation>
    </message>
    <message numerus="yes">
      <source> (and %n more)</source>
      <translation>
        <numerusform> (외 %n건)</numerusform>
      </translation>
    </message>
    <message>
      <source>Your last call ended unexpectedly</source>
      <translation>지난 통화가 갑자기 끝났어요</translation>
    </message>
    <message numerus="yes">
      <source>Your last %n calls ended unexpectedly</source>
      <translation>
        <numerusform>지난 통화 %n건이 갑자기 끝났어요</numerusform>
      </translation>
    </message>
    <message>
      <source>its report is ready</source>
      <translation>리포트가 준비됐어요</translation>
    </message>
    <message>
      <source>their reports are ready</source>
      <translation>리포트가 준비됐어요</translation>
    </message>
    <message>
      <source>Open report</source>
      <translation>리포트 열기</translation>
    </message>
  </context>
  <context>
    <name>MemoryPanel</name>
    <message>
      <source>Memory</source>
      <translation>기억</translation>
    </message>
    <message>
      <source>Category</source>
      <translation>분류</translation>
    </message>
    <message>
      <source>Source</source>
      <translation>출처</translation>
    </message>
    <message>
      <source>Created</source>
      <translation>만든 날</translation>
    </message>
    <message>
      <source>Last used</source>
      <translation>마지막 사용</translation>
    </message>
    <message>
      <source>All categories</source>
      <translation>모든 분류</translation>
    </message>
    <message>
      <source>Profile</source>
      <translation>프로필</translation>
    </message>
    <message>
      <source>Learner profile</source>
      <translation>학습자 프로필</translation>
    </message>
    <message>
      <source>New</source>
      <translation>새로 만들기</translation>
    </message>
    <message>
      <source>New profile</source>
      <translation>새 프로필</translation>
    </message>
    <message>
      <source>Delete profile</source>
      <translation>프로필 삭제</translation>
    </message>
    <message>
      <source>Pause memory: nothing new is remembered</source>
      <translation>기억 일시 중지: 새 내용을 기억하지 않아요</translation>
    </message>
    <message>
      <source>Pause memory</source>
      <translation>기억 일시 중지</translation>
    </message>
    <message>
      <source>The tutor remembers nothing new until you turn this off</source>
      <translation>이 설정을 끌 때까지 튜터가 새로운 내용을 기억하지 않아요</translation>
    </message>
    <message>
      <source>Search memories…</source>
      <translation>기억 검색…</translation>
    </message>
    <message>
      <source>Search memories</source>
      <translation>기억 검색</translation>
    </message>
    <message>
      <source>Category filter</source>
      <translation>분류 필터</translation>
    </message>
    <message>
      <source>Replaced values</source>
      <translation>바뀐 이전 값</translation>
    </message>
    <message>
      <source>Show older values that newer ones replaced</source>
      <translation>새 값으로 바뀐 이전 값 보기</translation>
    </message>
    <message>
      <source>Memories</source>
      <translation>기억 목록</translation>
    </message>
    <message>
      <source>Edit</source>
      <translation>수정</translation>
    </message>
    <message>
      <source>Delete</source>
      <translation>삭제</translation>
    </message>
    <message>
      <source>Delete the selected memory</source>
      <translation>선택한 기억 삭제</translation>
    </message>
    <message>
      <source>Export JSON</source>
      <translation>JSON 내보내기</translation>
    </message>
    <message>
      <source>Delete all…</source>
      <translation>모두 삭제…</translation>
    </message>
    <message>
      <source>Delete all memories of this profile</source>
      <translation>이 프로필의 기억 모두 삭제</translation>
    </message>
    <message>
      <source>Export memories</source>
      <translation>기억 내보내기</translation>
    </message>
    <message>
      <source>Memory is not available in this build.</source>
      <translation>이 버전에서는 기억 기능을 쓸 수 없어요.</translation>
    </message>
    <message>
      <source>Loading…</source>
      <translation>불러오는 중…</translation>
    </message>
    <message>
      <source>Memory problem: %1</source>
      <translation>기억 문제: %1</translation>
    </message>
    <message numerus="yes">
      <source>%n memories</source>
      <translation>
        <numerusform>기억 %n개</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>, %n replaced</source>
      <translation>
        <numerusform>, 바뀐 값 %n개</numerusform>
      </translation>
    </message>
    <message>
      <source>%1  (replaced)</source>
      <translation>%1  (바뀜)</translation>
    </message>
    <message>
      <source>Nothing remembered yet. Talk with your tutor and it will remember what you share: your name, your job, what you are working towards.</source>
      <translation>아직 기억한 내용이 없어요. 튜터와 이야기하면 이름, 직업, 목표처럼 나눈 이야기를 기억해요.</translation>
    </message>
    <message>
      <source>No memory matches.</source>
      <translation>맞는 기억이 없어요.</translation>
    </message>
    <message>
      <source>Searching…</source>
      <translation>검색 중…</translation>
    </message>
    <message numerus="yes">
      <source>%n found</source>
      <translation>
        <numerusform>%n개 찾음</numerusform>
      </translation>
    </message>
    <message>
      <source>Delete memory</source>
      <translation>기억 삭제</translation>
    </message>
    <message>
      <source>Forget this?

“%1”

It is erased from this computer.</source>
      <translation>이 내용을 잊을까요?

“%1”

이 컴퓨터에서 지워져요.</translation>
    </message>
    <message>
      <source>Deleted.</source>
      <translation>삭제했어요.</translation>
    </message>
    <message>
      <source>Delete all memories</source>
      <translation>기억 모두 삭제</translation>
    </message>
    <message numerus="yes">
      <source>Erase everything the tutor remembers about %1 (%n memories), including past call transcripts and reports? This cannot be undone.</source>
      <translation>
        <numerusform>튜터가 %1에 대해 기억하는 모든 내용(기억 %n개)을 지난 통화 기록과 리포트까지 지울까요? 되돌릴 수 없어요.</numerusform>
      </translation>
    </message>
    <message>
      <source>Delete everything</source>
      <translation>모두 삭제</translation>
    </message>
    <message>
      <source>Everything was deleted.</source>
      <translation>모두 삭제했어요.</translation>
    </message>
    <message>
      <source>Edit memory</source>
      <translation>기억 수정</translation>
    </message>
    <message>
      <source>What should the tutor remember instead?</source>
      <translation>대신 무엇을 기억할까요?</translation>
    </message>
    <message>
      <source>Saved.</source>
      <translation>저장했어요.</translation>
    </message>
    <message numerus="yes">
      <source>Exported %n memories.</source>
      <translation>
        <numerusform>기억 %n개를 내보냈어요.</numerusform>
      </translation>
    </message>
    <message>
      <source>Memory paused.</source>
      <translation>기억을 일시 중지했어요.</translation>
    </message>
    <message>
      <source>Memory on.</source>
      <translation>기억이 켜져 있어요.</translation>
    </message>
    <message>
      <source>Could not save: %1</source>
      <translation>저장하지 못했어요: %1</translation>
    </message>
    <message>
      <source>Learner name for the new profile:</source>
      <translation>새 프로필의 학습자 이름:</translation>
    </message>
    <message>
      <source>Delete the profile %1 and everything the tutor remembers about it? This cannot be undone.</source>
      <translation>%1 프로필과 튜터가 기억하는 모든 내용을 삭제할까요? 되돌릴 수 없어요.</translation>
    </message>
    <message>
      <source>said in call</source>
      <translation>통화 중 말함</translation>
    </message>
    <message>
      <source>you asked</source>
      <translation>내가 요청함</translation>
    </message>
    <message>
      <source>after a call</source>
      <translation>통화 후</translation>
    </message>
    <message>
      <source>added by you</source>
      <translation>내가 추가함</translation>
    </message>
    <message>
      <source>imported</source>
      <translation>가져옴</translation>
    </message>
  </context>
  <context>
    <name>ModelsPanel</name>
    <message>
      <source>Installed</source>
      <translation>설치됨</translation>
    </message>
    <message>
      <source>Ready (bundled)</source>
      <translation>준비됨 (기본 포함)</translation>
    </message>
    <message>
      <source>Not installed</source>
      <translation>설치 안 됨</translation>
    </message>
    <message>
      <source>Damaged</source>
      <translation>손상됨</translation>
    </message>
    <message>
      <source>Not downloaded</source>
      <translation>다운로드 안 됨</translation>
    </message>
    <message>
      <source>Speech recognition</source>
      <translation>음성 인식</translation>
    </message>
    <message>
      <source>Voice</source>
      <translation>목소리</translation>
    </message>
    <message>
      <source>Memory search</source>
      <translation>기억 검색</translation>
    </message>
    <message>
      <source>Emotion</source>
      <translation>감정</translation>
    </message>
    <message>
      <source>Offline tutor</source>
      <translation>오프라인 튜터</translation>
    </message>
    <message>
      <source>Voice detection</source>
      <translation>음성 감지</translation>
    </message>
    <message>
      <source>End of turn</source>
      <translation>말 끝 감지</translation>
    </message>
    <message>
      <source>pip package</source>
      <translation>pip 패키지</translation>
    </message>
    <message>
      <source>with the app</source>
      <translation>앱에 포함</translation>
    </message>
    <message>
      <source>Model</source>
      <translation>모델</translation>
    </message>
    <message>
      <source>Used for</source>
      <translation>용도</translation>
    </message>
    <message>
      <source>Status</source>
      <translation>상태</translation>
    </message>
    <message>
      <source>Size</source>
      <translation>크기</translation>
    </message>
    <message>
      <source>Licence</source>
      <translation>라이선스</translation>
    </message>
    <message>
      <source>Source</source>
      <translation>출처</translation>
    </message>
    <message>
      <source>%1 MB</source>
      <translation>%1 MB</translation>
    </message>
    <message>
      <source>Models</source>
      <translation>모델</translation>
    </message>
    <message>
      <source>Check again</source>
      <translation>다시 확인</translation>
    </message>
    <message>
      <source>Check the models again</source>
      <translation>모델 다시 확인</translation>
    </message>
    <message>
      <source>Checking…</source>
      <translation>확인 중…</translation>
    </message>
    <message>
      <source>Model problems</source>
      <translation>모델 문제</translation>
    </message>
    <message>
      <source>Install progress</source>
      <translation>설치 진행</translation>
    </message>
    <message>
      <source>Cancel</source>
      <translation>취소</translation>
    </message>
    <message>
      <source>Cancel the install</source>
      <translation>설치 취소</translation>
    </message>
    <message>
      <source>Checking the models (verifying checksums)…</source>
      <translation>모델 확인 중 (체크섬 검사)…</translation>
    </message>
    <message>
      <source>Speech recognition runs on: %1</source>
      <translation>음성 인식 실행 장치: %1</translation>
    </message>
    <message>
      <source>Cannot read the model list: %1</source>
      <translation>모델 목록을 읽을 수 없어요: %1</translation>
    </message>
    <message>
      <source>Install failed</source>
      <translation>설치 실패</translation>
    </message>
    <message>
      <source>To talk with your tutor offline, install: %1. Everything installs from this computer; no download needed.</source>
      <translation>오프라인으로 튜터와 이야기하려면 설치하세요: %1. 모두 이 컴퓨터에서 설치돼서 다운로드가 필요 없어요.</translation>
    </message>
    <message>
      <source>Everything needed to practise offline is here. Larger models (better accuracy) download when you are online.</source>
      <translation>오프라인 연습에 필요한 건 모두 있어요. 더 큰 모델(더 정확함)은 온라인일 때 다운로드해요.</translation>
    </message>
    <message>
      <source>bundled default</source>
      <translation>기본 포함</translation>
    </message>
    <message>
      <source>default</source>
      <translation>기본</translation>
    </message>
    <message>
      <source>suggested</source>
      <translation>추천</translation>
    </message>
    <message>
      <source>Saved: the offline tutor uses %1 from now on (after a restart if it was already loaded).</source>
      <translation>저장했어요. 이제 오프라인 튜터가 %1을(를) 써요 (이미 불러왔다면 다시 시작한 뒤부터).</translation>
    </message>
    <message>
      <source>%1 was not chosen: the settings could not be saved: %2</source>
      <translation>%1을(를) 고르지 못했어요. 설정을 저장할 수 없어요: %2</translation>
    </message>
    <message>
      <source>Repair</source>
      <translation>복구</translation>
    </message>
    <message>
      <source>Download</source>
      <translation>다운로드</translation>
    </message>
    <message>
      <source>Install</source>
      <translation>설치</translation>
    </message>
    <message>
      <source>Installing %1…</source>
      <translation>%1 설치 중…</translation>
    </message>
    <message>
      <source>Cancelling…</source>
      <translation>취소 중…</translation>
    </message>
    <message>
      <source>%1: %2 of %3</source>
      <translation>%1: %2 / %3</translation>
    </message>
    <message>
      <source>%1 installed.</source>
      <translation>%1을(를) 설치했어요.</translation>
    </message>
    <message>
      <source>Install of %1 cancelled. Nothing was changed.</source>
      <translation>%1 설치를 취소했어요. 바뀐 건 없어요.</translation>
    </message>
    <message>
      <source>%1 was not installed: %2</source>
      <translation>%1을(를) 설치하지 못했어요: %2</translation>
    </message>
  </context>
  <context>
    <name>PaceControls</name>
    <message>
      <source>By my level</source>
      <translation>내 수준에 맞게</translation>
    </message>
    <message>
      <source>Much slower</source>
      <translation>훨씬 느리게</translation>
    </message>
    <message>
      <source>Slower</source>
      <translation>느리게</translation>
    </message>
    <message>
      <source>Normal</source>
      <translation>보통</translation>
    </message>
    <message>
      <source>Faster</source>
      <translation>빠르게</translation>
    </message>
    <message>
      <source>Much faster</source>
      <translation>훨씬 빠르게</translation>
    </message>
    <message>
      <source>%1 s</source>
      <translation>%1초</translation>
    </message>
    <message>
      <source>normal</source>
      <translation>보통</translation>
    </message>
    <message>
      <source>a little slower</source>
      <translation>조금 느리게</translation>
    </message>
    <message>
      <source>a little faster</source>
      <translation>조금 빠르게</translation>
    </message>
    <message>
      <source>Speaking speed</source>
      <translation>말하기 속도</translation>
    </message>
    <message>
      <source>Your choice (%1x)</source>
      <translation>직접 고름 (%1배)</translation>
    </message>
    <message>
      <source>Thinking time</source>
      <translation>생각할 시간</translation>
    </message>
    <message>
      <source>Learn from my pauses</source>
      <translation>내가 쉬는 시간에 맞추기</translation>
    </message>
    <message>
      <source>Learn the thinking time from my pauses</source>
      <translation>내가 쉬는 시간에 맞춰 생각할 시간 조절</translation>
    </message>
    <message>
      <source>How fast the tutor talks. In a call you can also just ask: “Could you speak more slowly?”</source>
      <translation>튜터가 말하는 속도예요. 통화 중에 “천천히 말해 주세요”라고 부탁해도 돼요.</translation>
    </message>
    <message>
      <source>How long Tutor waits when you pause in the middle of a sentence. A sentence that sounds finished is answered after half of it. Learning from your pauses lets it wait longer if you often need more time.</source>
      <translation>문장 중간에 멈췄을 때 Tutor가 기다리는 시간이에요. 끝난 것 같은 문장은 그 절반만 기다려요. 내가 쉬는 시간에 맞추면, 자주 시간이 더 필요할 때 더 오래 기다려요.</translation>
    </message>
    <message>
      <source>By my level (%1)</source>
      <translation>내 수준에 맞게 (%1)</translation>
    </message>
  </context>
  <context>
    <name>PracticePage</name>
    <message>
      <source>You said</source>
      <translation>내가 한 말</translation>
    </message>
    <message>
      <source>Better</source>
      <translation>더 나은 표현</translation>
    </message>
    <message>
      <source>Type</source>
      <translation>유형</translation>
    </message>
    <message>
      <source>Comes back</source>
      <translation>다시 나옴</translation>
    </message>
    <message>
      <source>History</source>
      <translation>기록</translation>
    </message>
    <message>
      <source>Everything</source>
      <translation>전체</translation>
    </message>
    <message>
      <source>Due next call</source>
      <translation>다음 통화에 나옴</translation>
    </message>
    <message>
      <source>Mastered</source>
      <translation>익힘</translation>
    </message>
    <message>
      <source>Mistakes</source>
      <translation>실수</translation>
    </message>
    <message>
      <source>New words</source>
      <translation>새 단어</translation>
    </message>
    <message>
      <source>Next call</source>
      <translation>다음 통화</translation>
    </message>
    <message>
      <source>Tomorrow</source>
      <translation>내일</translation>
    </message>
    <message>
      <source>In %n days</source>
      <translation>%n일 후</translation>
    </message>
    <message>
      <source>Practice</source>
      <translation>연습</translation>
    </message>
    <message>
      <source>Your own mistakes and the new words of your calls. Each one comes back in a later call until you use it right; three times in a row and it is mastered.</source>
      <translation>통화에서 한 실수와 새 단어예요. 바르게 쓸 때까지 다음 통화에 다시 나오고, 세 번 연속 맞히면 익힌 거예요.</translation>
    </message>
    <message>
      <source>Search your practice…</source>
      <translation>연습 검색…</translation>
    </message>
    <message>
      <source>Search practice</source>
      <translation>연습 검색</translation>
    </message>
    <message>
      <source>Show</source>
      <translation>보기</translation>
    </message>
    <message>
      <source>Practice items</source>
      <translation>연습 항목</translation>
    </message>
    <message>
      <source>Delete</source>
      <translation>삭제</translation>
    </message>
    <message>
      <source>%1 for the next call · %2 mastered · %3 in all</source>
      <translation>다음 통화 %1개 · 익힘 %2개 · 전체 %3개</translation>
    </message>
    <message>
      <source>Practice problem: %1</source>
      <translation>연습 문제: %1</translation>
    </message>
    <message>
      <source>(new word)</source>
      <translation>(새 단어)</translation>
    </message>
    <message>
      <source>word</source>
      <translation>단어</translation>
    </message>
    <message>
      <source>Nothing yet: after a call, the tutor's corrections and new words appear here.</source>
      <translation>아직 없어요. 통화가 끝나면 튜터의 교정과 새 단어가 여기에 나와요.</translation>
    </message>
    <message>
      <source>No item matches.</source>
      <translation>맞는 항목이 없어요.</translation>
    </message>
    <message>
      <source>Why: %1</source>
      <translation>이유: %1</translation>
    </message>
    <message>
      <source>From your call of %1</source>
      <translation>%1 통화에서</translation>
    </message>
    <message>
      <source>you used the better form</source>
      <translation>더 나은 표현을 썼어요</translation>
    </message>
    <message>
      <source>you used the word</source>
      <translation>단어를 썼어요</translation>
    </message>
    <message>
      <source>the old form came back</source>
      <translation>예전 표현이 다시 나왔어요</translation>
    </message>
    <message>
      <source>Delete practice item</source>
      <translation>연습 항목 삭제</translation>
    </message>
    <message>
      <source>Forget “%1” and its history for good?</source>
      <translation>“%1”과(와) 그 기록을 완전히 잊을까요?</translation>
    </message>
    <message>
      <source>Deleting…</source>
      <translation>삭제 중…</translation>
    </message>
    <message>
      <source>Deleted.</source>
      <translation>삭제했어요.</translation>
    </message>
    <message>
      <source>an earlier day</source>
      <translation>예전</translation>
    </message>
  </context>
  <context>
    <name>Problems</name>
    <message>
      <source>The microphone was disconnected: the call is paused until it is back (you can still type).</source>
      <translation>마이크 연결이 끊겼어요. 다시 연결될 때까지 통화를 멈춰요 (입력은 계속할 수 있어요).</translation>
    </message>
    <message>
      <source>The microphone did not come back: end the call or type your turns.</source>
      <translation>마이크가 다시 연결되지 않았어요. 통화를 끝내거나 입력해서 대화를 이어 가세요.</translation>
    </message>
    <message>
      <source>The tutor model did not accept the API key: check it in Settings.</source>
      <translation>튜터 모델이 API 키를 받아들이지 않았어요. 설정에서 확인해 주세요.</translation>
    </message>
  </context>
  <context>
    <name>ProfileCard</name>
    <message>
      <source>Learner profile</source>
      <translation>학습자 프로필</translation>
    </message>
    <message>
      <source>About %1</source>
      <translation>%1 정보</translation>
    </message>
    <message>
      <source>before: %1</source>
      <translation>이전: %1</translation>
    </message>
  </context>
  <context>
    <name>ReportView</name>
    <message>
      <source>Call report</source>
      <translation>통화 리포트</translation>
    </message>
    <message>
      <source>call length (min)</source>
      <translation>통화 시간 (분)</translation>
    </message>
    <message>
      <source>you spoke (min)</source>
      <translation>내가 말한 시간 (분)</translation>
    </message>
    <message>
      <source>words per minute</source>
      <translation>분당 단어 수</translation>
    </message>
    <message>
      <source>words you said</source>
      <translation>내가 말한 단어 수</translation>
    </message>
    <message>
      <source>How you felt</source>
      <translation>나의 감정</translation>
    </message>
    <message>
      <source>Corrections</source>
      <translation>교정</translation>
    </message>
    <message>
      <source>Fluency</source>
      <translation>유창성</translation>
    </message>
    <message>
      <source>Words the tutor had trouble hearing (the recogniser's confidence, not a pronunciation score):</source>
      <translation>튜터가 알아듣기 어려웠던 단어 (발음 점수가 아니라 음성 인식의 확신도예요):</translation>
    </message>
    <message>
      <source>New words</source>
      <translation>새 단어</translation>
    </message>
    <message numerus="yes">
      <source> · %n turn(s)</source>
      <translation>
        <numerusform> · 대화 %n번</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source> · %n with memory paused, not in this report</source>
      <translation>
        <numerusform> · %n번은 기억 일시 중지 중이라 이 리포트에 없어요</numerusform>
      </translation>
    </message>
    <message>
      <source>you spoke (min, est.)</source>
      <translation>내가 말한 시간 (분, 추정)</translation>
    </message>
    <message>
      <source>Estimated from typed turns at a typical speaking pace.</source>
      <translation>입력한 대화를 보통 말하기 속도로 계산한 추정치예요.</translation>
    </message>
    <message>
      <source>No corrections this time. Nicely done.</source>
      <translation>이번에는 고칠 게 없어요. 잘했어요!</translation>
    </message>
    <message>
      <source>No new words in this call.</source>
      <translation>이 통화에는 새 단어가 없어요.</translation>
    </message>
    <message>
      <source>Corrections and words picked by your tutor.</source>
      <translation>튜터가 고른 교정과 단어예요.</translation>
    </message>
    <message>
      <source>Picked by the offline tutor model: a small model may miss some mistakes, so a short list is not a perfect score.</source>
      <translation>오프라인 튜터 모델이 골랐어요. 작은 모델은 실수를 놓칠 수 있어서, 목록이 짧다고 만점은 아니에요.</translation>
    </message>
    <message>
      <source>New words are a rough pick (the tutor model gave no review).</source>
      <translation>새 단어는 대략 고른 거예요 (튜터 모델의 검토가 없었어요).</translation>
    </message>
    <message>
      <source>Measured from spoken turns: this call has none with word timings.</source>
      <translation>말한 대화로 측정해요. 이 통화에는 단어 시간 정보가 있는 대화가 없어요.</translation>
    </message>
    <message>
      <source>%1 words between pauses on average · pauses %2% of your speaking time · %3 words per minute while speaking</source>
      <translation>쉬지 않고 평균 %1단어 · 말한 시간의 %2%는 쉼 · 말하는 동안 분당 %3단어</translation>
    </message>
    <message>
      <source>Over your last %n spoken calls: %1 → %2 words between pauses, pauses %3% → %4% of speaking time.</source>
      <translation>최근 말하기 통화 %n번: 쉬지 않고 말한 단어 %1 → %2개, 쉼 %3% → %4%.</translation>
    </message>
  </context>
  <context>
    <name>SettingsDialog</name>
    <message>
      <source>American (US)</source>
      <translation>미국식 (US)</translation>
    </message>
    <message>
      <source>British (UK)</source>
      <translation>영국식 (UK)</translation>
    </message>
    <message>
      <source>Australian (AU)</source>
      <translation>호주식 (AU)</translation>
    </message>
    <message>
      <source>Beginner</source>
      <translation>초급</translation>
    </message>
    <message>
      <source>Intermediate</source>
      <translation>중급</translation>
    </message>
    <message>
      <source>Advanced</source>
      <translation>고급</translation>
    </message>
    <message>
      <source>Daily</source>
      <translation>일상</translation>
    </message>
    <message>
      <source>Travel</source>
      <translation>여행</translation>
    </message>
    <message>
      <source>Business</source>
      <translation>비즈니스</translation>
    </message>
    <message>
      <source>Interview</source>
      <translation>면접</translation>
    </message>
    <message>
      <source>Small talk</source>
      <translation>가벼운 대화</translation>
    </message>
    <message>
      <source>School</source>
      <translation>학교</translation>
    </message>
    <message>
      <source>Hobbies</source>
      <translation>취미</translation>
    </message>
    <message>
      <source>News</source>
      <translation>뉴스</translation>
    </message>
    <message>
      <source>Automatic: Claude when a key is set, else offline</source>
      <translation>자동: 키가 있으면 Claude, 없으면 오프라인</translation>
    </message>
    <message>
      <source>Claude (cloud)</source>
      <translation>Claude (클라우드)</translation>
    </message>
    <message>
      <source>Offline model on this computer</source>
      <translation>이 컴퓨터의 오프라인 모델</translation>
    </message>
    <message>
      <source>Automatic (GPU when available)</source>
      <translation>자동 (가능하면 GPU)</translation>
    </message>
    <message>
      <source>CPU</source>
      <translation>CPU</translation>
    </message>
    <message>
      <source>GPU (CUDA)</source>
      <translation>GPU (CUDA)</translation>
    </message>
    <message>
      <source>Same as the system</source>
      <translation>시스템 언어</translation>
    </message>
    <message>
      <source>System default</source>
      <translation>시스템 기본값</translation>
    </message>
    <message>
      <source>Settings</source>
      <translation>설정</translation>
    </message>
    <message>
      <source>Tutor</source>
      <translation>튜터</translation>
    </message>
    <message>
      <source>Audio</source>
      <translation>오디오</translation>
    </message>
    <message>
      <source>Tutor model</source>
      <translation>튜터 모델</translation>
    </message>
    <message>
      <source>Speech</source>
      <translation>음성 인식</translation>
    </message>
    <message>
      <source>Data</source>
      <translation>데이터</translation>
    </message>
    <message>
      <source>Accent</source>
      <translation>억양</translation>
    </message>
    <message>
      <source>Level</source>
      <translation>수준</translation>
    </message>
    <message>
      <source>Topic</source>
      <translation>주제</translation>
    </message>
    <message>
      <source>The tutor speaks with this accent, at this level, and steers the conversation towards the topic.</source>
      <translation>튜터가 이 억양과 수준으로 말하고, 대화를 이 주제로 이끌어요.</translation>
    </message>
    <message>
      <source>Interface language</source>
      <translation>화면 언어</translation>
    </message>
    <message>
      <source>Language</source>
      <translation>화면 언어</translation>
    </message>
    <message>
      <source>Used from the next start of Tutor.</source>
      <translation>Tutor를 다시 시작하면 적용돼요.</translation>
    </message>
    <message>
      <source>Explain corrections in Korean</source>
      <translation>교정을 한국어로도 설명하기</translation>
    </message>
    <message>
      <source>The report after each call explains each correction in English and in Korean.</source>
      <translation>통화가 끝나면 리포트에서 교정마다 영어와 한국어 설명을 함께 보여 줘요.</translation>
    </message>
    <message>
      <source>Microphone</source>
      <translation>마이크</translation>
    </message>
    <message>
      <source>Speaker</source>
      <translation>스피커</translation>
    </message>
    <message>
      <source>Test: record 3 s and play back</source>
      <translation>테스트: 3초 녹음 후 재생</translation>
    </message>
    <message>
      <source>Test microphone and speaker</source>
      <translation>마이크와 스피커 테스트</translation>
    </message>
    <message>
      <source>Automatic: headset or speakers, from your device's name</source>
      <translation>자동: 장치 이름으로 헤드셋/스피커 판단</translation>
    </message>
    <message>
      <source>Headset: you can interrupt the tutor at any time</source>
      <translation>헤드셋: 언제든 튜터의 말을 끊을 수 있어요</translation>
    </message>
    <message>
      <source>Laptop speakers: Tutor cancels its own voice, so you can still interrupt it</source>
      <translation>노트북 스피커: Tutor가 자기 목소리를 지워서 말을 끊을 수 있어요</translation>
    </message>
    <message>
      <source>Mode</source>
      <translation>모드</translation>
    </message>
    <message>
      <source>Tutor model backend</source>
      <translation>튜터 모델 방식</translation>
    </message>
    <message>
      <source>Claude model</source>
      <translation>Claude 모델</translation>
    </message>
    <message>
      <source>Offline model</source>
      <translation>오프라인 모델</translation>
    </message>
    <message>
      <source>Use the offline model when Claude or the local server cannot be reached</source>
      <translation>Claude나 로컬 서버에 연결할 수 없으면 오프라인 모델 사용</translation>
    </message>
    <message>
      <source>Backend</source>
      <translation>방식</translation>
    </message>
    <message>
      <source>Local model server URL</source>
      <translation>로컬 모델 서버 URL</translation>
    </message>
    <message>
      <source>empty: run the offline model in the app (e.g. http://127.0.0.1:11434)</source>
      <translation>비워 두면 앱 안에서 오프라인 모델 실행 (예: http://127.0.0.1:11434)</translation>
    </message>
    <message>
      <source>Local server model name</source>
      <translation>로컬 서버 모델 이름</translation>
    </message>
    <message>
      <source>empty: the server's first model (e.g. qwen2.5:3b)</source>
      <translation>비워 두면 서버의 첫 번째 모델 (예: qwen2.5:3b)</translation>
    </message>
    <message>
      <source>Local server</source>
      <translation>로컬 서버</translation>
    </message>
    <message>
      <source>Server model</source>
      <translation>서버 모델</translation>
    </message>
    <message>
      <source>API key</source>
      <translation>API 키</translation>
    </message>
    <message>
      <source>The key is kept in your system's keyring, never in a file. Calls to Claude send the conversation to Anthropic; the offline model keeps everything here.</source>
      <translation>키는 파일이 아니라 시스템 키링에 보관해요. Claude와 통화하면 대화가 Anthropic으로 전송되고, 오프라인 모델은 모든 내용을 이 컴퓨터에 둬요.</translation>
    </message>
    <message>
      <source>Speech recognition model</source>
      <translation>음성 인식 모델</translation>
    </message>
    <message>
      <source>Speech recognition device</source>
      <translation>음성 인식 장치</translation>
    </message>
    <message>
      <source>Recognition model</source>
      <translation>인식 모델</translation>
    </message>
    <message>
      <source>Runs on</source>
      <translation>실행 장치</translation>
    </message>
    <message>
      <source>Tutor voice</source>
      <translation>튜터 목소리</translation>
    </message>
    <message>
      <source>Preview</source>
      <translation>미리 듣기</translation>
    </message>
    <message>
      <source>Preview the voice</source>
      <translation>목소리 미리 듣기</translation>
    </message>
    <message>
      <source>Voice</source>
      <translation>목소리</translation>
    </message>
    <message>
      <source>A new recognition model, device or voice is used from the next start of Tutor; install more models on the Models page.</source>
      <translation>새 인식 모델, 장치, 목소리는 Tutor를 다시 시작하면 적용돼요. 모델 페이지에서 더 설치할 수 있어요.</translation>
    </message>
    <message>
      <source>Data folder</source>
      <translation>데이터 폴더</translation>
    </message>
    <message>
      <source>Open the data folder</source>
      <translation>데이터 폴더 열기</translation>
    </message>
    <message>
      <source>Models folder</source>
      <translation>모델 폴더</translation>
    </message>
    <message>
      <source>Open the models folder</source>
      <translation>모델 폴더 열기</translation>
    </message>
    <message>
      <source>Settings file</source>
      <translation>설정 파일</translation>
    </message>
    <message>
      <source>Open</source>
      <translation>열기</translation>
    </message>
    <message>
      <source>Everything Tutor knows about you stays in the data folder on this computer. Nothing is sent anywhere else; there is no telemetry.</source>
      <translation>Tutor가 아는 내 정보는 모두 이 컴퓨터의 데이터 폴더에 있어요. 다른 곳으로 보내지 않고, 사용 통계도 수집하지 않아요.</translation>
    </message>
    <message>
      <source>No audio devices: %1</source>
      <translation>오디오 장치 없음: %1</translation>
    </message>
    <message>
      <source>This computer: %1</source>
      <translation>이 컴퓨터: %1</translation>
    </message>
    <message>
      <source>%1 (not connected)</source>
      <translation>%1 (연결 안 됨)</translation>
    </message>
    <message>
      <source>No microphone found. You can still type to your tutor.</source>
      <translation>마이크가 없어요. 튜터에게 입력해서 대화할 수 있어요.</translation>
    </message>
    <message>
      <source>Test failed: %1</source>
      <translation>테스트 실패: %1</translation>
    </message>
    <message>
      <source>Voice preview is not available.</source>
      <translation>목소리 미리 듣기를 쓸 수 없어요.</translation>
    </message>
    <message>
      <source>Speaking…</source>
      <translation>말하는 중…</translation>
    </message>
    <message>
      <source>Preview failed: %1</source>
      <translation>미리 듣기 실패: %1</translation>
    </message>
    <message>
      <source>Not saved: %1</source>
      <translation>저장하지 못했어요: %1</translation>
    </message>
  </context>
  <context>
    <name>Startup</name>
    <message>
      <source>speech recognition</source>
      <translation>음성 인식</translation>
    </message>
    <message>
      <source>voice</source>
      <translation>목소리</translation>
    </message>
    <message>
      <source>emotion reader</source>
      <translation>감정 인식</translation>
    </message>
    <message>
      <source>memory</source>
      <translation>기억</translation>
    </message>
    <message>
      <source>tutor model</source>
      <translation>튜터 모델</translation>
    </message>
    <message>
      <source>tutor</source>
      <translation>튜터</translation>
    </message>
  </context>
  <context>
    <name>SuggestionCard</name>
    <message>
      <source>No checksum is published for it in the app: the sha256 is recorded at the first download and every later load is checked against it.</source>
      <translation>앱에 체크섬이 없어요. 처음 다운로드할 때 sha256을 기록하고, 이후 불러올 때마다 확인해요.</translation>
    </message>
    <message>
      <source>Downloads from Hugging Face (%1).</source>
      <translation>Hugging Face에서 다운로드해요 (%1).</translation>
    </message>
    <message>
      <source>Ships with the app.</source>
      <translation>앱에 포함돼 있어요.</translation>
    </message>
    <message>
      <source>Bundled with the app (pip package): installs without a download, checksum verified.</source>
      <translation>앱에 포함(pip 패키지): 다운로드 없이 설치되고 체크섬을 확인해요.</translation>
    </message>
    <message>
      <source>Optional, not bundled with the app: downloads once, checksum verified.</source>
      <translation>선택 사항, 앱에 포함되지 않음: 한 번 다운로드하고 체크섬을 확인해요.</translation>
    </message>
    <message>
      <source>Suggested offline tutor model</source>
      <translation>추천 오프라인 튜터 모델</translation>
    </message>
    <message>
      <source>Suggested offline tutor model for this computer</source>
      <translation>이 컴퓨터에 추천하는 오프라인 튜터 모델</translation>
    </message>
    <message>
      <source>Install</source>
      <translation>설치</translation>
    </message>
    <message>
      <source>Use it</source>
      <translation>사용</translation>
    </message>
    <message>
      <source>In use.</source>
      <translation>사용 중.</translation>
    </message>
    <message>
      <source>Installed.</source>
      <translation>설치됨.</translation>
    </message>
    <message>
      <source>Damaged: install it again.</source>
      <translation>손상됨: 다시 설치하세요.</translation>
    </message>
    <message>
      <source>Not installed yet.</source>
      <translation>아직 설치 안 됨.</translation>
    </message>
    <message>
      <source>Licence: %1.</source>
      <translation>라이선스: %1.</translation>
    </message>
    <message>
      <source>The offline tutor now uses %1 (the bundled offline default).</source>
      <translation>지금 오프라인 튜터는 %1을(를) 써요 (기본 포함 모델).</translation>
    </message>
    <message>
      <source>The offline tutor now uses %1.</source>
      <translation>지금 오프라인 튜터는 %1을(를) 써요.</translation>
    </message>
    <message>
      <source>Repair</source>
      <translation>복구</translation>
    </message>
    <message>
      <source>Download and install</source>
      <translation>다운로드 후 설치</translation>
    </message>
    <message>
      <source>Use %1 as the offline tutor model</source>
      <translation>%1을(를) 오프라인 튜터 모델로 사용</translation>
    </message>
    <message>
      <source>Install it first</source>
      <translation>먼저 설치하세요</translation>
    </message>
  </context>
  <context>
    <name>TranscriptView</name>
    <message>
      <source>Conversation transcript</source>
      <translation>대화 기록</translation>
    </message>
  </context>
  <context>
    <name>_CorrectionRow</name>
    <message>
      <source>Correction: %1 becomes %2</source>
      <translation>교정: %1 → %2</translation>
    </message>
  </context>
</TS>