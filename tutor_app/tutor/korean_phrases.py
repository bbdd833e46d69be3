"""The offline "how do I say X in English?" table (tutor/korean_help.py): common Korean words
and phrases a learner asks about - travel, work, daily life, feelings - with the English
and one short example sentence.

Provenance: written for this project by its authors (no dictionary or corpus was copied);
the English follows the app's default US accent. Kept as a Python module so it travels
with the code (the installer and a wheel take it without a data-file rule).

Format, one entry a line: Korean forms (alternatives separated by " / ") | English |
example sentence. A form is looked up without its spaces; a learner's particle ("출장은",
"여권을") is taken off by korean_help before the lookup.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

TABLE = """
# travel
출장 | business trip | I'm going on a business trip to Busan next week.
여행 | trip | We took a trip to Jeju last summer.
해외여행 | trip abroad | My first trip abroad was to Japan.
여권 | passport | Don't forget your passport.
비자 | visa | Do I need a visa for Canada?
공항 | airport | How do I get to the airport?
비행기 | plane | The plane leaves at nine.
항공권 / 비행기표 | plane ticket | I booked my plane ticket online.
탑승권 | boarding pass | Here is my boarding pass.
탑승구 | gate | Our flight leaves from gate twelve.
짐 / 수하물 | luggage | My luggage is too heavy.
기내 수하물 / 기내용 가방 | carry-on bag | I only have a carry-on bag.
환승 / 경유 | layover | We have a two-hour layover in Tokyo.
연착 / 지연 | delayed | Our flight was delayed by two hours.
창가 자리 / 창가 좌석 | window seat | Can I have a window seat, please?
통로 자리 / 통로 좌석 | aisle seat | I'd like an aisle seat, please.
숙소 | place to stay | We found a nice place to stay near the beach.
예약 | reservation | I have a reservation for two nights.
예약하다 | make a reservation | I'd like to make a reservation for tonight.
체크인 | check in | What time can we check in?
체크아웃 | check out | We have to check out by eleven.
환전 | exchange money | Where can I exchange money?
환율 | exchange rate | What's the exchange rate today?
지하철 | subway | I take the subway to work.
지하철역 | subway station | Where is the nearest subway station?
역 | station | The station is five minutes from here.
버스 정류장 / 정류장 | bus stop | The bus stop is across the street.
택시 | taxi | Let's take a taxi.
길을 잃다 / 길을 잃었어요 / 길을 잃어버렸어요 | lost | Excuse me, I'm lost.
지도 | map | Can I see the map?
관광 | sightseeing | We went sightseeing in Paris.
관광지 | tourist attraction | Gyeongbokgung is a famous tourist attraction.
기념품 | souvenir | I bought some souvenirs for my family.
면세점 | duty-free shop | I bought perfume at the duty-free shop.
왕복 | round trip | A round-trip ticket to Busan, please.
편도 | one way | A one-way ticket, please.
렌터카 | rental car | We picked up a rental car at the airport.
휴가 | vacation | I'm on vacation next week.
시차 / 시차 적응 | jet lag | I still have jet lag.
멀미 | motion sickness | I get motion sickness on boats.
입국 심사 | immigration | The line at immigration was very long.
세관 | customs | We went through customs quickly.
분실물 센터 / 분실물 | lost and found | I asked at the lost and found.
관광 안내소 | tourist information center | The tourist information center gave us a map.
매표소 | ticket office | The ticket office opens at nine.
게스트하우스 / 민박 | guesthouse | We stayed at a small guesthouse.
짐을 맡기다 / 짐 맡기기 | leave my luggage | Can I leave my luggage here until three?
# work
회사 | company | I work for a small company.
회사원 / 직장인 | office worker | I'm an office worker in Seoul.
직장 | workplace | My workplace is near the station.
직업 | job | What's your job?
일하다 | work | I work at a bank.
회의 | meeting | I have a meeting at two.
회의실 | meeting room | The meeting room is on the third floor.
야근 | work overtime | I had to work overtime yesterday.
출근 | go to work | I go to work by bus.
퇴근 | get off work | I get off work at six.
칼퇴 / 칼퇴근 / 정시 퇴근 | leave on time | I want to leave on time today.
출퇴근 | commute | My commute takes an hour.
월급 | salary | I get my salary on the twenty-fifth.
연봉 | annual salary | Her annual salary went up this year.
상사 | boss | My boss is very kind.
동료 / 직장 동료 | coworker | My coworkers are friendly.
신입 / 신입사원 | new employee | I'm a new employee here.
면접 | job interview | I have a job interview tomorrow.
이력서 | resume | I sent my resume to three companies.
자기소개 | introduce myself | Let me introduce myself.
승진 | promotion | She got a promotion last year.
이직 | change jobs | I want to change jobs next year.
퇴사 | quit my job | I quit my job last month.
재택근무 | work from home | I work from home on Fridays.
마감 / 마감일 | deadline | The deadline is Friday.
발표 | presentation | I have to give a presentation tomorrow.
보고서 | report | I'm writing a report for my boss.
계약 | contract | We signed the contract today.
거래처 / 고객 | client | I'm meeting a client this afternoon.
협상 | negotiation | The negotiation went well.
회식 | team dinner | We have a team dinner on Friday.
점심시간 | lunch break | I take a walk during my lunch break.
연차 / 휴가를 내다 | day off | I'm taking a day off tomorrow.
병가 | sick leave | I'm on sick leave today.
근무 시간 | working hours | My working hours are nine to six.
교대 근무 / 교대 | shift | I work the night shift.
스트레스 | stress | I'm under a lot of stress at work.
업무 | task | I have a lot of tasks today.
부서 | department | I work in the marketing department.
본사 | head office | Our head office is in Seoul.
명함 | business card | Here's my business card.
일정 | schedule | My schedule is very busy this week.
연락하다 / 연락할게요 | get in touch | I'll get in touch with you tomorrow.
회의록 | meeting minutes | I wrote the meeting minutes.
결재 | approval | I need my boss's approval.
외근 | out of the office | I'm out of the office today.
아르바이트 / 알바 | part-time job | I have a part-time job at a cafe.
스펙 | qualifications | You need good qualifications for that job.
# daily life
아침 / 아침밥 / 아침 식사 | breakfast | I had toast for breakfast.
점심 / 점심밥 / 점심 식사 | lunch | What did you have for lunch?
저녁밥 / 저녁 식사 | dinner | Let's have dinner together.
저녁 | evening | I watch TV in the evening.
간식 | snack | I had a snack at four.
야식 | late-night snack | I had a late-night snack again.
혼밥 | eat alone | I often eat alone at lunch.
배고프다 / 배고파요 / 배가 고파요 | hungry | I'm hungry, so let's eat.
배부르다 / 배불러요 | full | I'm full, thank you.
피곤하다 / 피곤해요 | tired | I'm really tired today.
졸리다 / 졸려요 | sleepy | I'm sleepy after lunch.
바쁘다 / 바빠요 | busy | I'm busy this week.
심심하다 / 심심해요 | bored | I'm bored, so let's go out.
설거지 | do the dishes | I do the dishes after dinner.
빨래 | do the laundry | I do the laundry on Sundays.
청소 | clean the house | I clean the house on weekends.
집안일 | chores | I do chores on Sunday morning.
장보기 / 장을 보다 | go grocery shopping | I go grocery shopping on Saturdays.
마트 | supermarket | I bought milk at the supermarket.
편의점 | convenience store | There's a convenience store next to my house.
산책 | take a walk | I take a walk after dinner.
운동 | exercise | I exercise three times a week.
헬스장 / 헬스 | gym | I go to the gym after work.
요리 | cooking | I love cooking Korean food.
낮잠 | take a nap | I want to take a nap after lunch.
늦잠 | oversleep | I overslept and missed the bus.
주말 | weekend | What did you do on the weekend?
평일 | weekday | I'm busy on weekdays.
이사 | move | We moved to a new apartment last month.
월세 | monthly rent | My monthly rent is too high.
집주인 | landlord | My landlord fixed the heater.
원룸 | studio apartment | I live in a small studio apartment.
이웃 | neighbor | My neighbor has a cute dog.
반려동물 / 애완동물 | pet | Do you have a pet?
강아지 | puppy | My sister has a puppy.
고양이 | cat | My cat sleeps all day.
날씨 | weather | How's the weather today?
비가 오다 / 비가 와요 | it's raining | It's raining, so take an umbrella.
우산 | umbrella | I forgot my umbrella.
미세먼지 | fine dust | There's a lot of fine dust today, so I'm wearing a mask.
생일 | birthday | Happy birthday!
선물 | gift | I bought a gift for my mom.
약속 | plans | Sorry, I have plans tonight.
친구 | friend | I met my friend for coffee.
가족 | family | I have a small family.
부모님 | parents | My parents live in Daegu.
남편 | husband | My husband is a teacher.
아내 | wife | My wife loves hiking.
남자친구 / 남친 | boyfriend | My boyfriend lives in Seoul.
여자친구 / 여친 | girlfriend | My girlfriend is a nurse.
결혼 | get married | They want to get married next year.
아이 / 자녀 | kids | I have two kids.
취미 | hobby | What's your hobby?
등산 | hiking | I go hiking on weekends.
낚시 | fishing | My father likes fishing.
영화관 / 극장 | movie theater | Let's meet at the movie theater.
드라마 | TV show | I watched a Korean TV show last night.
노래방 | karaoke | We went to karaoke after dinner.
술 | a drink | Let's get a drink after work.
숙취 | hangover | I have a hangover today.
핸드폰 / 휴대폰 / 휴대전화 | cell phone | I left my cell phone at home.
충전기 | charger | Can I borrow your charger?
콘센트 | outlet | Is there an outlet near my seat?
노트북 | laptop | I bought a new laptop.
에어컨 | air conditioner | Can you turn on the air conditioner?
리모컨 | remote control | Where's the remote control?
셀카 | selfie | Let's take a selfie.
사인 / 서명 | signature | Can I have your signature here?
아이쇼핑 | window shopping | We went window shopping downtown.
# shopping and eating out
계산서 | the check | Can I have the check, please?
영수증 | receipt | Can I have a receipt?
할인 | discount | Is there a discount for students?
현금 | cash | Can I pay in cash?
신용카드 / 카드 | credit card | Can I pay by credit card?
환불 | refund | Can I get a refund?
교환 | exchange | Can I exchange this for a bigger size?
입어 보다 / 입어 봐도 돼요 | try it on | Can I try this on?
포장 | to go | Can I get this to go?
배달 | delivery | Let's order delivery tonight.
주문 | order | Are you ready to order?
맛있다 / 맛있어요 | delicious | This soup is delicious.
맵다 / 매워요 | spicy | This is too spicy for me.
짜다 / 짜요 | salty | The soup is a little salty.
달다 / 달아요 | sweet | This cake is very sweet.
물 | water | Can I have some water, please?
화장실 | restroom | Excuse me, where is the restroom?
계단 | stairs | Let's take the stairs.
길 | the way | Can you tell me the way to the station?
오른쪽 | right | Turn right at the corner.
왼쪽 | left | Turn left at the bank.
직진 | straight ahead | Go straight ahead for two blocks.
신호등 | traffic light | Turn left at the traffic light.
횡단보도 | crosswalk | Cross the street at the crosswalk.
교통체증 / 차가 막히다 / 차가 막혀요 / 길이 막혀요 | traffic jam | I was late because of a traffic jam.
주차장 | parking lot | The parking lot is full.
운전면허 / 면허 | driver's license | I got my driver's license last year.
# health
병원 | hospital | I went to the hospital for a checkup.
약국 | pharmacy | Is there a pharmacy near here?
약 | medicine | Did you take your medicine?
감기 | a cold | I have a cold.
두통 | headache | I have a headache.
열이 나요 / 열이 나다 / 열나요 | a fever | I have a fever.
아프다 / 아파요 | sick | I feel sick today.
다치다 / 다쳤어요 | hurt | I hurt my leg.
건강 | health | Exercise is good for your health.
# school and study
학교 | school | My school is near my house.
학원 | academy | My son goes to an English academy after school.
숙제 | homework | I finished my homework.
시험 | exam | I have an exam on Monday.
수업 | class | My English class starts at seven.
선생님 | teacher | My teacher is very patient.
대학교 / 대학 | university | I graduated from university in 2015.
졸업 | graduate | I graduated last year.
전공 | major | My major was economics.
공부 | study | I study English every morning.
단어 | word | I learned ten new words today.
발음 | pronunciation | My pronunciation is getting better.
문법 | grammar | English grammar is hard for me.
회화 / 영어 회화 | conversation | I want to practice English conversation.
외국인 | foreigner | Many foreigners visit Seoul.
자신감 | confidence | I want more confidence when I speak English.
# feelings
긴장되다 / 긴장돼요 / 떨려요 / 떨리다 | nervous | I'm nervous about the interview.
걱정 / 걱정돼요 / 걱정되다 | worried | I'm worried about my exam.
기대되다 / 기대돼요 | looking forward to it | I'm looking forward to the trip.
행복하다 / 행복해요 | happy | I'm so happy today.
슬프다 / 슬퍼요 | sad | I felt sad after the movie.
화나다 / 화나요 / 화가 나요 | angry | My boss was angry.
창피하다 / 창피해요 / 부끄러워요 / 부끄럽다 | embarrassed | I was so embarrassed.
답답하다 / 답답해요 | frustrated | I feel frustrated when I can't find the words.
아쉽다 / 아쉬워요 | that's a shame | That's a shame, but maybe next time.
# everyday expressions
안녕하세요 | hello | Hello, nice to meet you.
감사합니다 / 고맙습니다 / 고마워요 | thank you | Thank you for your help.
죄송합니다 / 미안합니다 / 미안해요 | I'm sorry | I'm sorry I'm late.
실례합니다 | excuse me | Excuse me, is this seat taken?
괜찮아요 / 괜찮다 | it's okay | It's okay, don't worry.
반가워요 / 만나서 반가워요 / 만나서 반갑습니다 | nice to meet you | Nice to meet you, too.
오랜만이에요 / 오랜만 / 오랜만입니다 | long time no see | Long time no see, Minji!
잘 지냈어요 / 잘 지냈어 | how have you been | Hi Minji, how have you been?
잘 자요 / 잘 자 | good night | Good night, see you tomorrow.
수고하셨습니다 / 수고했어요 / 수고하세요 | good work | Good work today, everyone.
화이팅 / 파이팅 | you can do it | Don't worry, you can do it!
대박 | awesome | That's awesome!
진짜 / 정말 | really | Are you really moving to Busan?
생각해 볼게요 | let me think about it | Let me think about it.
어쩔 수 없다 / 어쩔 수 없어요 | it can't be helped | The train was late, but it can't be helped.
눈치 | read the room | He's good at reading the room.
월요병 | Monday blues | I always get the Monday blues.
# time
오늘 | today | What are you doing today?
내일 | tomorrow | See you tomorrow.
어제 | yesterday | I was busy yesterday.
모레 | the day after tomorrow | I'm leaving the day after tomorrow.
그저께 / 그제 | the day before yesterday | I saw her the day before yesterday.
지난주 | last week | I went to Busan last week.
다음 주 | next week | I have an exam next week.
매일 | every day | I walk to work every day.
가끔 | sometimes | I sometimes cook dinner.
자주 | often | I often drink coffee in the morning.
"""


@dataclass(frozen=True)
class Phrase:
    korean: str  # the first form listed
    english: str
    example: str


def key(text: str) -> str:
    """How a Korean form is looked up: without spaces."""
    return "".join(text.split())


@functools.lru_cache(maxsize=1)
def phrases() -> dict[str, Phrase]:
    """Every Korean form (spaces taken out) -> its entry."""
    table: dict[str, Phrase] = {}
    for line in TABLE.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        forms, english, example = (part.strip() for part in line.split("|"))
        names = [f.strip() for f in forms.split("/") if f.strip()]
        entry = Phrase(names[0], english, example)
        for name in names:
            table.setdefault(key(name), entry)
    return table
