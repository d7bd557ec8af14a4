"""What the generated chat history says: pools of names and the sentences of
:mod:`eval.life_history`, written for it (no fixture or corpus is quoted).

Data only. A sentence is a ``str.format`` template; its slots are the subject's fields
(``{name}``, ``{species}``, ``{city}`` ...) and a few of the life's own (``{partner}``,
``{month}``). Each bank is a list of (user message, assistant reply) pairs: the user asks for
help and mentions something of their life on the way, as people do.
"""

from __future__ import annotations

# --- pools the life is drawn from (one seed, one life) --------------------------------------

FIRST_NAMES = """
Ana Tomasz Priya Kwame Ingrid Mateo Yuki Siobhan Farah Lars Noor Dmitri Chiara Ravi Elif Bram
Aoife Jonas Leila Oskar Mina Teodor Camila Hamid Freya Idris Marisol Bjorn Annika Kofi Selin
Rafael Hana Declan Zofia Emeka Ottilie Tariq Greta Nikhil Rosalind Jun Malin Anouk Cyrus Ilse
""".split()
SURNAMES = """
Okafor Lindqvist Moreau Brennan Kowalczyk Haddad Tanaka Varga Ferreira Nakamura Delacroix
Abernethy Sørensen Quispe Mbeki Castellano Ivanova Whitcombe Achterberg Rahimi
""".split()
PET_NAMES = """
Pepper Biscuit Mochi Juniper Waffles Olive Pickle Ziggy Nutmeg Clementine Bramble Tofu Pretzel
Marmite Sprocket Tansy
""".split()
DOGS = ["greyhound", "beagle", "border collie", "whippet", "labrador", "spaniel"]
CATS = ["tabby", "ginger cat", "rescue cat", "Maine Coon", "black cat"]
CITY_MOVES = [
    ("Leeds", "Rotterdam", "Dutch"),
    ("Bristol", "Lisbon", "Portuguese"),
    ("Glasgow", "Ghent", "Dutch"),
    ("Manchester", "Valencia", "Spanish"),
    ("Cork", "Tallinn", "Estonian"),
    ("Sheffield", "Gothenburg", "Swedish"),
    ("Norwich", "Lyon", "French"),
    ("Cardiff", "Utrecht", "Dutch"),
]
EMPLOYERS = """
Brightwater Labs|Kestrel Analytics|Quaystone Energy|Larchmont Bank|Tessellate Health|Orbitly|
Marrowfield Studio|Pinewise Foods|Harbourline Logistics|Fennick Robotics|Sablewood Games|
Cobalt Civic
""".replace("\n", "").split("|")
ROLES = [
    "data analyst",
    "product designer",
    "backend developer",
    "project coordinator",
    "UX researcher",
    "QA engineer",
]
# (condition, medication or treatment, the practitioner seen)
CONDITIONS = [
    ("plantar fasciitis", "calf stretches", "physio"),
    ("migraines", "sumatriptan", "GP"),
    ("tennis elbow", "wrist exercises", "physio"),
    ("asthma", "salbutamol", "asthma nurse"),
    ("iron deficiency", "iron tablets", "GP"),
    ("torn meniscus", "knee rehab exercises", "physio"),
    ("eczema", "emollient cream", "dermatologist"),
]
# (hobby, the word its places and groups are called by)
HOBBIES = [
    ("pottery", "class"),
    ("bouldering", "gym"),
    ("sourdough baking", "class"),
    ("chess", "club"),
    ("trail running", "club"),
    ("watercolour painting", "class"),
    ("bass guitar", "course"),
    ("birdwatching", "group"),
    ("sea swimming", "group"),
    ("woodworking", "course"),
    ("crochet", "circle"),
]
PROJECTS = [
    ("Tidepool", "budgeting app"),
    ("Larkspur", "newsletter about city cycling"),
    ("Driftwood", "recipe-sharing site"),
    ("Quillmate", "browser extension for journaling"),
    ("Beanstalk", "plant-watering tracker"),
]
TOOLS = ["Obsidian", "Notion", "Figma", "Anki", "Strava", "Todoist"]
TRIP_PLACES = [
    "the Dolomites",
    "Kraków",
    "the Isle of Skye",
    "Seville",
    "Copenhagen",
    "the Algarve",
    "Ljubljana",
    "Bergen",
    "Naples",
    "the Peak District",
]
ONE_OFF_PEOPLE = [
    ("plumber", "The plumber, {name}, says the boiler needs a new pump"),
    ("landlord", "My landlord {name} wants to put the rent up by 8%"),
    ("dentist", "my dentist Dr {name} recommended a night guard"),
    ("neighbour", "Our neighbour {name} keeps parking across our drive"),
    ("tutor", "my old uni tutor {name} asked me to give a guest talk"),
    ("cousin", "my cousin {name} is visiting from abroad next week"),
]
MONTHS = """January February March April May June July August September October November
December""".split()

# --- the life's subjects, as they come up in a request for help -----------------------------
# Slots: {name} (the subject), {species}, {city}, {employer}, {role}, {condition}, {treatment},
# {seen}, {hobby}, {place}, {thing}, {language}, {partner}, {month}, {old_city}, {tool}.

PET_ARRIVAL = [
    (
        "We adopted a {species} last week and named her {name}. What should we buy for the "
        "first month, and how do we help her settle in?",
        "Congratulations on adopting {name}! For the first weeks, keep things calm: a quiet "
        "bed in a corner, the same food the shelter used, a short routine for walks and meals.",
    ),
    (
        "just brought home a {species} from the rescue, her name is {name}. she hides under the "
        "table all day, is that normal?",
        "Yes, that is very common. Give her a safe spot, let her come to you, and keep "
        "visitors to a minimum for a couple of weeks.",
    ),
]
PET = [
    (
        "{name} keeps pulling on the lead whenever we pass other dogs. Any training tips?",
        "Stop walking the moment the lead goes tight and only move on when it is slack. "
        "Reward her for looking at you near other dogs.",
    ),
    (
        "my {species} {name} hasn't touched her dinner since yesterday, should I be worried",
        "One skipped meal is usually fine if she is drinking and bright. If she still will not "
        "eat tomorrow, or seems lethargic, call your vet.",
    ),
    (
        "{name} has her booster jabs at the vet on Thursday. What should I ask while I'm there?",
        "Ask about her weight, flea and worm treatment schedules, dental health and whether "
        "her diet still suits her age.",
    ),
    (
        "What's a good way to keep {name} calm during fireworks? She shakes for hours.",
        "Make a den with blankets, close the curtains, play steady background noise and stay "
        "relaxed yourself. Ask your vet about calming aids for the worst nights.",
    ),
    (
        "I'm away for the weekend, can you write a short note for the sitter about feeding "
        "{name}? Two meals, no chicken, she sleeps in the kitchen.",
        "Here is a note: {name} eats twice a day, 8am and 6pm. No chicken at all. She sleeps "
        "in the kitchen; leave her water bowl full.",
    ),
    (
        "how much exercise does a {species} actually need? {name} gets restless in the evening",
        "Most need one or two good walks a day plus some play. A puzzle feeder or a short "
        "training session in the evening often settles them.",
    ),
    (
        "Funny name ideas for {name}'s birthday party? She's turning {age} and my "
        "{partner_rel} wants a cake for dogs lol",
        "How about a 'Pawty' with a peanut-butter and banana cake? Keep the icing to plain "
        "yoghurt and skip chocolate and raisins.",
    ),
]
CAT = [
    (
        "{name} scratches the sofa every night. How do I stop her without shouting?",
        "Put a tall scratching post right next to the sofa, reward her for using it, and "
        "make the sofa less fun with a throw for a few weeks.",
    ),
    (
        "my {species} {name} keeps bringing mice in through the cat flap. any way to stop it",
        "A bell on a quick-release collar helps, and so does play before she goes out.",
    ),
    (
        "Is it normal for a cat to sleep 16 hours a day? {name} barely moves",
        "Yes, cats sleep a lot. Watch for changes in eating, drinking or litter habits.",
    ),
    (
        "{name} has to go to the vet for her teeth, she hates the carrier. tips?",
        "Leave the carrier out with a blanket in it for a week before, and feed her near it.",
    ),
]
PARTNER = [
    (
        "My partner {name} and I are going to {trip} in {month}. Can you draft a five-day "
        "itinerary? We like long walks and small restaurants.",
        "Here is a relaxed plan: two days of walks from the centre, one day trip by train, "
        "and evenings in the old town.",
    ),
    (
        "{name}'s birthday is next week and I have no ideas. They love {thing}. Budget about "
        "80 pounds",
        "A few ideas: a workshop voucher, a good book on the subject, or a day out planned "
        "around it.",
    ),
    (
        "help me write an anniversary card for {name}, we've been together {years} years and "
        "I'm terrible at this",
        "Try: 'Every year with you feels like the easy part of life. Thank you for the last "
        "{years}, and here's to the next ones.'",
    ),
    (
        "{name} and I keep arguing about chores. How do couples split them fairly?",
        "List every job, agree who hates what, and trade. Review it after a month; what "
        "matters is that both of you feel it is fair.",
    ),
    (
        "what vegetarian dinner can I cook tonight for me and {name} with lentils, spinach and "
        "a tin of tomatoes",
        "A lentil and spinach dal: fry onion, garlic and cumin, add the lentils and tomatoes, "
        "simmer 20 minutes, stir in the spinach at the end.",
    ),
]
SISTER = [
    (
        "My sister {name} is getting married in {month}. Can you help me write a short speech? "
        "We shared a room until I was 15.",
        "Open with a shared memory from that room, say what you admire in her now, welcome "
        "her partner, and end with a toast.",
    ),
    (
        "{name} (my sister) just told me she's pregnant!! what do you get someone for a baby "
        "shower",
        "Congratulations to her! Practical gifts are welcome: muslins, a sling, or a meal "
        "delivery voucher for the first weeks.",
    ),
    (
        "i need to plan a surprise video call for mum's birthday with my sister {name}, she "
        "lives in a different timezone",
        "Pick a time that is evening for both, send a calendar invite with a made-up title, "
        "and ask everyone to join five minutes early.",
    ),
    (
        "My sister {name} wants to borrow money again. How do I say no without a fight?",
        "Be kind and clear: say you cannot lend this time, without long reasons, and offer "
        "help of another kind if you want to.",
    ),
]
NIECE = [
    (
        "My niece {name} was born on Saturday! What's a nice keepsake gift for a newborn?",
        "Congratulations! A printed book with her name, a hand-knitted blanket or a "
        "time-capsule box are all lovely.",
    ),
    (
        "what are good books for a two year old? it's for my niece {name}",
        "Board books with flaps and rhymes work well at that age.",
    ),
]
FRIEND = [
    (
        "My friend {name} is moving abroad next month. What's a thoughtful leaving present?",
        "Something small to pack: a photo book of your times together, a favourite local "
        "snack, or a letter to open on the first bad day.",
    ),
    (
        "{name} invited me to a weekend away but I can't afford it. How do I say no nicely?",
        "Be honest and warm: thank her, say it does not fit your budget this month, and "
        "suggest a cheaper plan together.",
    ),
    (
        "help me reply to {name}, she asked how I'm doing and honestly it's been a rough month",
        "You could write: 'Thanks for asking. It's been a tough few weeks, can we get a coffee "
        "soon? I'd love to talk.'",
    ),
]
MANAGER = [
    (
        "My manager {name} asked me to present our quarterly numbers on Friday. How do I "
        "structure ten minutes?",
        "Start with the one number that matters, then three slides of context, then what you "
        "need from the room.",
    ),
    (
        "how do I ask {name} (my boss) for a raise without sounding entitled",
        "Bring evidence: what you delivered, what the role pays elsewhere, and the number "
        "you want. Ask for a meeting about it, not a corridor chat.",
    ),
    (
        "{name} gave me some harsh feedback in my one-to-one today. how do i not take it "
        "personally",
        "Write down the specific points, separate them from the tone, and pick one to work "
        "on. Ask for an example if something was vague.",
    ),
]
JOB_START = [
    (
        "I'm starting as a {role} at {employer} on Monday. What should I focus on in my first "
        "week?",
        "Learn names, ask how decisions are made, and write down everything you do not "
        "understand. Aim for one small win by the end of the month.",
    ),
    (
        "got the offer from {employer}!!! they want me as {role}, how do I negotiate the salary",
        "Thank them, ask for the full package in writing, and counter with a specific number "
        "a little above what you want.",
    ),
]
JOB = [
    (
        "Write a polite email to HR at {employer} asking how my pension contributions work",
        "Subject: Question about pension contributions. Hi, could you tell me how my "
        "contributions are calculated and whether I can change them? Thanks.",
    ),
    (
        "we have a reorg at {employer} and nobody knows what's happening. how do I stay sane",
        "Focus on what you control, keep a record of your work, and ask your manager directly "
        "what changes for you.",
    ),
    (
        "can you help me write my self-review? I'm a {role} at {employer}, this year I "
        "shipped the onboarding redesign",
        "Structure it as: what you shipped, the effect it had, what you learned, and what you "
        "want to do next year.",
    ),
    (
        "I have to give a talk at the {employer} all-hands about my team's work. Tips for nerves?",
        "Rehearse out loud twice, memorise your first two sentences, and breathe out slowly "
        "before you start.",
    ),
]
JOB_LEAVE = [
    (
        "I handed in my notice at {employer} today. Can you help me write a goodbye message "
        "to the team?",
        "Here is a draft: 'After some great years, Friday is my last day. Thank you for "
        "everything you taught me; let's stay in touch.'",
    ),
]
MOVE = [
    (
        "I'm moving from {old_city} to {city} in {month} for a new job. Which neighbourhoods "
        "are good without a car?",
        "Look for areas near a tram or train line with a supermarket in walking distance; "
        "the centre and the districts around the main station are usually well connected.",
    ),
    (
        "checklist for everything I need to sort out after moving to {city}? registration, "
        "bank, doctor",
        "Register your address first, then open a bank account, sign up with a GP, and "
        "sort out health insurance and utilities.",
    ),
]
CITY = [
    (
        "What's the best way to meet people in {city}? I've been here a few months and know "
        "nobody outside work",
        "Join something that meets weekly: a sports club, a language exchange or a volunteer "
        "group. Regular contact is what builds friendships.",
    ),
    (
        "any good day trips from {city} by train? looking for somewhere with a lake",
        "Check the regional trains: most cities have a lake or coast within an hour. Go early "
        "on a weekday to avoid crowds.",
    ),
    (
        "it's been raining in {city} for two weeks straight. indoor things to do on a sunday?",
        "Museums, a climbing gym, a long lunch, a cinema matinee, or a cooking class.",
    ),
]
HEALTH_START = [
    (
        "The {seen} says I have {condition}. What exercises are safe while it heals?",
        "Follow their plan first. Gentle, pain-free movement is usually fine; stop anything "
        "that makes it worse the next day.",
    ),
    (
        "I've been diagnosed with {condition} and started {treatment}. Anything I should know?",
        "Take it exactly as prescribed, note any side effects, and ask the pharmacist about "
        "interactions with anything else you take.",
    ),
]
HEALTH = [
    (
        "my {condition} flared up again after the weekend, ugh. what helps in the first 48 hours?",
        "Rest it, use ice or heat as your {seen} advised, and keep moving gently where it "
        "does not hurt.",
    ),
    (
        "Can you make me a simple daily plan for my {condition}? The {seen} gave me "
        "{treatment} and I keep forgetting",
        "Morning: {treatment} with breakfast. Midday: a short walk. Evening: the exercises "
        "from your {seen}, then a note of how it felt.",
    ),
    (
        "is it ok to drink coffee if I'm on {treatment} for {condition}?",
        "Usually yes, but check the leaflet or ask a pharmacist; some treatments are better "
        "taken apart from coffee or meals.",
    ),
    (
        "I have a follow-up with the {seen} about my {condition} tomorrow. What should I ask?",
        "Ask whether it is improving as expected, how long to continue the treatment, and "
        "what signs mean you should come back sooner.",
    ),
]
HEALTH_END = [
    (
        "The {seen} signed me off today, the {condition} is finally better! How do I ease "
        "back into normal training?",
        "Great news. Start at half your old volume, add ten percent a week, and keep the "
        "exercises that helped.",
    ),
]
HOBBY_START = [
    (
        "I just joined a {hobby} {place} near work. What should I know as a complete beginner?",
        "Expect to be slow at first; that is the fun part. Ask the teacher what to practise "
        "at home and go every week.",
    ),
    (
        "thinking of taking up {hobby}. is it expensive to start?",
        "It can be cheap: borrow or rent the basics for the first month before you buy anything.",
    ),
]
HOBBY = [
    (
        "I've been doing {hobby} for a while and I'm stuck on a plateau. How do I get better?",
        "Pick one weakness, practise it on purpose for a few weeks, and ask someone more "
        "experienced to watch you.",
    ),
    (
        "What should go in a beginner {hobby} kit? budget around 100 euros",
        "Spend on the one thing you use most and buy the rest second hand.",
    ),
    (
        "write a short, friendly bio for me for the {hobby} {place} newsletter. I joined last "
        "year and I'm still pretty bad lol",
        "'I joined last year and I'm still learning, mostly by making every mistake once. "
        "Come and say hello at the next session!'",
    ),
    (
        "how do I fit {hobby} into a busy week? I only really have Tuesday evenings",
        "Protect Tuesday like a meeting, and add two ten-minute practice slots at home.",
    ),
    (
        "my {hobby} {place} is doing a weekend trip in {month}. what should I pack?",
        "Layers, a waterproof, snacks, a water bottle, and whatever kit the organisers list.",
    ),
]
PROJECT = [
    (
        "I'm building a {thing} called {name} in my spare time. How should I structure the "
        "database?",
        "Start with the few tables you need for the main flow, add indexes for what you "
        "query, and keep it boring.",
    ),
    (
        "need a tagline for {name}, my side project. it's a {thing}",
        "A few options: 'Small habits, kept.', 'Your {thing}, without the fuss.'",
    ),
    (
        "{name} finally has its first 50 users! how do I collect feedback without being annoying",
        "Ask one question at a time, in the product, after someone has done the main thing. "
        "Offer a short call to the keenest ones.",
    ),
    (
        "should I rewrite {name} in TypeScript? it's getting hard to change anything",
        "Convert it file by file as you touch them rather than all at once.",
    ),
]
LANGUAGE = [
    (
        "I want to learn {language} properly now that I live in {city}. Make me a study plan, "
        "twenty minutes a day",
        "Ten minutes of vocabulary with spaced repetition, ten of listening or speaking. "
        "Once a week, a longer conversation practice.",
    ),
    (
        "quiz me on {language} numbers from 1 to 20 please",
        "Sure. What is 7? What is 12? What is 19?",
    ),
    (
        "I passed my {language} A2 exam!! What should I study next?",
        "Congratulations! Move on to B1 listening and start reading short articles.",
    ),
]
TOOL = [
    (
        "how do I set up a daily note template in {name}? I want a section for tasks and one "
        "for mood",
        "Create a template note with two headings, then point the daily-notes setting at it.",
    ),
    (
        "I use {name} for everything but it's getting messy. How do other people organise it?",
        "Keep few top-level folders, use links and tags for the rest, and review weekly.",
    ),
]
TRIP = [
    (
        "Planning a long weekend in {name} in {month}. Where should I stay and what should I "
        "not miss?",
        "Stay central so you can walk everywhere; book the most popular sight ahead and leave "
        "one afternoon free.",
    ),
]
ONE_OFF = [
    (
        "{said}. How do I reply politely but firmly?",
        "Acknowledge what was said, state what you need, and propose a next step with a date.",
    ),
    (
        "{said}, is that normal? what should I ask?",
        "It can be. Ask for the reason in writing, what the alternatives are and what they cost.",
    ),
]

# Short second turns: the person follows up on the same subject.
FOLLOW_UPS = [
    "thanks, that helps a lot",
    "perfect, thank you!",
    "ok and what if that doesn't work?",
    "can you make it shorter?",
    "great. one more thing, {name} is a bit shy, does that change anything?",
    "thank you. I'll tell {name} tonight",
    "makes sense. {name} will be happy",
]

# --- the everyday help that most of a history is ---------------------------------------------
# (user message, assistant reply); no subject of the person's life in them.

EVERYDAY = [
    (
        "How do I reverse a list in Python without changing the original?",
        "Use slicing: reversed_list = my_list[::-1]. The original stays as it was.",
    ),
    (
        "regex to match an email address, doesn't need to be perfect",
        r"A practical one: ^[^@\s]+@[^@\s]+\.[^@\s]+$ . It accepts most real addresses.",
    ),
    (
        "What's the difference between a left join and an inner join?",
        "An inner join keeps rows that match in both tables; a left join keeps every row of "
        "the left table and fills the missing right side with NULL.",
    ),
    (
        "git says 'detached HEAD'. what did I do and how do I get back?",
        "You checked out a commit rather than a branch. Run git switch main (or your branch) "
        "to get back; create a branch first if you made commits there.",
    ),
    (
        "Explain recursion like I'm twelve",
        "A recursive function solves a big problem by calling itself on a smaller piece of "
        "the same problem, until the piece is so small the answer is obvious.",
    ),
    (
        "convert 350 fahrenheit to celsius",
        "350°F is about 177°C.",
    ),
    (
        "Give me a quick recipe for banana bread with three bananas",
        "Mash 3 bananas, mix in 75g melted butter, 150g sugar, 1 egg, 1 tsp baking soda and "
        "190g flour. Bake at 175°C for about 55 minutes.",
    ),
    (
        "How long should I boil an egg for a runny yolk?",
        "About 6 minutes from boiling water, then straight into cold water.",
    ),
    (
        "write a polite email declining a meeting invite because of a clash",
        "Hi, thanks for the invite. I have a clash at that time; could we find another slot "
        "this week, or could you share notes afterwards?",
    ),
    (
        "What's a good structure for a cover letter?",
        "Why this role, what you bring (two or three examples), why this company, and a short "
        "close asking for a conversation.",
    ),
    (
        "Summarise the causes of the First World War in five bullet points",
        "Alliances, militarism, imperial rivalry, nationalism, and the assassination in "
        "Sarajevo that set them off.",
    ),
    (
        "how do vaccines train the immune system",
        "They show the immune system a harmless piece or version of a germ, so it builds "
        "antibodies and memory cells without you getting ill.",
    ),
    (
        "Excel formula to count cells that contain the word 'late'",
        '=COUNTIF(A:A,"*late*") counts the cells of column A that contain it.',
    ),
    (
        "whats the capital of australia, i always forget",
        "Canberra.",
    ),
    (
        "Translate 'where is the train station' into German and Italian",
        "German: Wo ist der Bahnhof? Italian: Dov'è la stazione?",
    ),
    (
        "Is it 'affect' or 'effect' in 'the weather will ___ our plans'?",
        "Affect: it is the verb. The noun is effect.",
    ),
    (
        "How do I get red wine out of a carpet?",
        "Blot (do not rub), then dab with cold water and a little washing-up liquid; finish "
        "with a paste of baking soda once it is dry.",
    ),
    (
        "what's a good stretching routine after sitting all day",
        "Hip flexor lunges, a doorway chest stretch, cat-cow and a hamstring stretch, 30 "
        "seconds each.",
    ),
    (
        "Can you explain what an index fund is?",
        "A fund that buys every share of an index, such as a broad stock market, so your "
        "money follows the market at a low cost.",
    ),
    (
        "JavaScript: why does 0.1 + 0.2 not equal 0.3?",
        "Numbers are binary floating point, and 0.1 and 0.2 have no exact binary form; the "
        "sum is 0.30000000000000004.",
    ),
    (
        "how do I center a div horizontally and vertically",
        "On the parent: display: flex; justify-content: center; align-items: center;",
    ),
    (
        "write a haiku about autumn rain",
        "Grey roofs drink slowly / a red leaf rides the gutter / the kettle answers",
    ),
    (
        "Suggest a name for a team Slack channel about release planning",
        "#release-radar, #ship-it, #launch-pad or #release-room.",
    ),
    (
        "difference between baking soda and baking powder?",
        "Baking soda needs an acid in the recipe to rise; baking powder already has the acid "
        "in it.",
    ),
    (
        "SQL: how do I find duplicate rows by email",
        "SELECT email, COUNT(*) FROM users GROUP BY email HAVING COUNT(*) > 1;",
    ),
    (
        "How many litres of paint for a 4 by 3 metre wall, two coats?",
        "12 square metres times two coats is 24; at about 12 m² per litre you need 2 litres.",
    ),
    (
        "Explain the offside rule quickly",
        "A player is offside if, when the ball is played to them, they are in the opponent's "
        "half and nearer the goal line than both the ball and the second-last defender.",
    ),
    (
        "what does 'idempotent' mean in APIs",
        "Doing it twice has the same effect as doing it once: a PUT of the same body, a "
        "DELETE of the same item.",
    ),
    (
        "Tips for a job interview over video?",
        "Camera at eye level, light in front of you, notes off screen, and test the link "
        "ten minutes early.",
    ),
    (
        "Help me write a message to the building manager about a broken lift",
        "Hello, the lift has been out of order since Monday. Could you tell us when it will "
        "be repaired? Thank you.",
    ),
    (
        "How do I make a sourdough-free quick flatbread?",
        "Mix 200g flour, 150g yoghurt and a pinch of salt, roll thin and cook in a dry pan, "
        "two minutes a side.",
    ),
    (
        "what's the fastest way to learn touch typing",
        "Fifteen minutes a day on a typing tutor, eyes off the keys, accuracy before speed.",
    ),
    (
        "pros and cons of a standing desk",
        "Pros: more movement, less stiffness. Cons: standing all day is tiring too; "
        "alternate, and get a mat.",
    ),
    (
        "Can you check this sentence: 'Me and him went to the shops'",
        "More formal: 'He and I went to the shops.'",
    ),
    (
        "bash: loop over every .csv file in a folder and print its line count",
        'for f in *.csv; do wc -l "$f"; done',
    ),
    (
        "How do noise-cancelling headphones work?",
        "Microphones pick up outside sound and the headphones play the opposite wave, so "
        "the two cancel out.",
    ),
    (
        "Explain compound interest with an example",
        "1,000 at 5% a year is 1,050 after a year, then 1,102.50: interest earns interest.",
    ),
    (
        "what should I look for when buying a second-hand bike",
        "A straight frame without cracks, smooth gears, brakes that bite, and a seller "
        "who lets you ride it.",
    ),
    (
        "How do I politely end a conversation with a chatty coworker?",
        "Say you need to get back to something, with a warm line: 'Good catching up, I need "
        "to finish this before three.'",
    ),
    (
        "what temperature should a fridge be",
        "Between 3 and 5°C.",
    ),
    (
        "Why is the sky blue?",
        "Air scatters short blue wavelengths of sunlight more than red ones, so blue comes "
        "at us from every direction.",
    ),
    (
        "python: read a json file and print the keys",
        "import json; data = json.load(open('file.json')); print(list(data))",
    ),
    (
        "Suggest a 30-minute bodyweight workout with no equipment",
        "Five rounds: 10 squats, 10 push-ups, 10 lunges a side, 30 seconds plank, one minute rest.",
    ),
    (
        "what are some good board games for four adults",
        "Codenames, Ticket to Ride, Azul, Wavelength and Cascadia.",
    ),
    (
        "How do I unclog a bathroom sink without chemicals?",
        "Pull out the stopper and hair, then a plunger, or baking soda followed by vinegar "
        "and hot water.",
    ),
    (
        "docker: how do I see the logs of a container that keeps restarting",
        "docker logs --tail 100 -f <container>, and docker inspect for its exit code.",
    ),
    (
        "Write a short thank-you note to a neighbour who watered my plants",
        "Thank you so much for looking after the plants while I was away; they look happier "
        "than when I left!",
    ),
    (
        "What's the difference between weather and climate?",
        "Weather is what happens today; climate is the pattern over decades.",
    ),
    (
        "Make a shopping list for a week of simple vegetarian lunches",
        "Chickpeas, lentils, feta, eggs, spinach, tomatoes, wraps, hummus, peppers, rice.",
    ),
    (
        "how to say no to extra work when my plate is full",
        "Name what you are doing now and ask which should drop: 'I can take it if X moves to "
        "next week. Which matters more?'",
    ),
]

# Everyday requests the person frames in the first person without naming anything of their
# life: they are the bulk of what a proposer must leave alone.
EVERYDAY_FIRST_PERSON = [
    (
        "I'm trying to parse dates like '3rd of May' in Python, any library for that?",
        "dateparser or dateutil.parser handle most of them.",
    ),
    (
        "I have a job interview tomorrow and I'm nervous. Any last-minute advice?",
        "Prepare three stories about your work, sleep, and arrive early. Nerves mean you care.",
    ),
    (
        "I keep waking up at 4am and can't get back to sleep. Ideas?",
        "Keep the room dark and cool, no screens, and get up for a while if you are awake "
        "more than twenty minutes.",
    ),
    (
        "I want to save more money this year. Where do I start?",
        "Track a month of spending, set up an automatic transfer on payday, and cut one "
        "subscription.",
    ),
    (
        "I'm cooking for eight people on Saturday. Easy main that can be made ahead?",
        "A big tray of lasagne or a slow-cooked chilli: both are better the next day.",
    ),
    (
        "i always procrastinate on emails, how do i stop",
        "Batch them twice a day, reply to short ones at once, and write the first line of "
        "hard ones before you stop.",
    ),
    (
        "I need to write a complaint to an airline about a lost suitcase",
        "Give the flight number, the file reference, what was in the bag and what you want: "
        "delivery or compensation by a date.",
    ),
    (
        "I'm thinking about buying an electric car. What should I check?",
        "Real-world range, home charging, insurance, and the battery warranty.",
    ),
    (
        "I feel stuck in my career but don't know what I want. How do people figure it out?",
        "Try small experiments: talk to people in roles you are curious about, take a short "
        "course, and notice what gives you energy.",
    ),
    (
        "I'm hosting a book club for the first time. Good discussion questions?",
        "What surprised you, which character you would not want to meet, and what the ending "
        "changed.",
    ),
]

# The person's way of typing, one per conversation.
STYLES = ("plain", "plain", "plain", "lower", "hurried", "typo")
HURRIED = {
    " you ": " u ",
    "please": "pls",
    "thanks": "thx",
    " because ": " bc ",
    " tomorrow": " tmrw",
    "I'm ": "im ",
    "I've ": "ive ",
    "don't": "dont",
    "can't": "cant",
}
