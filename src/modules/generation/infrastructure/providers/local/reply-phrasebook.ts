/**
 * Reply templates of the local text adapter, per language: how to greet someone by name (casual
 * or neutral, by the character's tone), thanks for a compliment, "you're welcome" for thanks, an
 * answer-ish line for a question (placeholder {niche}), and a plain acknowledgement per channel.
 * Placeholders: {author}, {niche}. Nothing here echoes what the audience wrote.
 */
export interface ReplyPhrasebook {
  hello: { casual: string[]; neutral: string[] };
  thanks: string[];
  welcome: string[];
  question: string[];
  acknowledge: { comment: string[]; dm: string[] };
}

const en: ReplyPhrasebook = {
  hello: { casual: ['Hey {author}!', 'Hiya {author}!'], neutral: ['Hi {author}!', 'Hello {author}!'] },
  thanks: ['Thank you so much, that means a lot!', 'Aw, thank you! That made my day.'],
  welcome: ['You’re so welcome!', 'Anytime, glad it helped!'],
  question: [
    'Great question! For me it always comes down to small, steady steps in {niche}.',
    'Good question! In {niche}, what works for me is keeping it simple and consistent.',
  ],
  acknowledge: {
    comment: ['Thanks for the comment, I love hearing from you!', 'Thanks for stopping by and sharing this!'],
    dm: ['Thanks for your message, it’s lovely to hear from you!', 'Thanks for reaching out!'],
  },
};

const es: ReplyPhrasebook = {
  hello: { casual: ['¡Hola, {author}!', '¡Hey, {author}!'], neutral: ['¡Hola, {author}!', '¡Buenas, {author}!'] },
  thanks: ['¡Muchas gracias, significa mucho para mí!', '¡Gracias! Me has alegrado el día.'],
  welcome: ['¡De nada, es un placer!', '¡Cuando quieras, me alegra que te sirva!'],
  question: [
    '¡Buena pregunta! Para mí, en {niche} todo se reduce a pasos pequeños y constantes.',
    '¡Buena pregunta! En {niche}, lo que me funciona es mantenerlo simple y constante.',
  ],
  acknowledge: {
    comment: ['¡Gracias por tu comentario, me encanta leerte!', '¡Gracias por pasarte y compartirlo!'],
    dm: ['¡Gracias por tu mensaje, qué alegría saber de ti!', '¡Gracias por escribirme!'],
  },
};

const fr: ReplyPhrasebook = {
  hello: { casual: ['Coucou {author} !', 'Salut {author} !'], neutral: ['Bonjour {author} !', 'Bonjour à toi, {author} !'] },
  thanks: ['Merci beaucoup, ça me touche !', 'Oh, merci ! Tu as illuminé ma journée.'],
  welcome: ['Avec plaisir !', 'De rien, ça me fait plaisir que ça t’aide !'],
  question: [
    'Bonne question ! Pour moi, en {niche}, tout repose sur de petits pas réguliers.',
    'Bonne question ! En {niche}, ce qui marche pour moi, c’est la simplicité et la régularité.',
  ],
  acknowledge: {
    comment: ['Merci pour ton commentaire, j’adore te lire !', 'Merci pour ton passage et ton partage !'],
    dm: ['Merci pour ton message, ça fait plaisir !', 'Merci de m’avoir écrit !'],
  },
};

const de: ReplyPhrasebook = {
  hello: { casual: ['Hey {author}!', 'Hallo {author}!'], neutral: ['Hallo {author}!', 'Guten Tag, {author}!'] },
  thanks: ['Vielen Dank, das bedeutet mir viel!', 'Oh, danke! Du hast mir den Tag versüßt.'],
  welcome: ['Gern geschehen!', 'Jederzeit, freut mich, dass es hilft!'],
  question: [
    'Gute Frage! Bei {niche} kommt es für mich auf kleine, stetige Schritte an.',
    'Gute Frage! Bei {niche} hilft mir vor allem, einfach und beständig zu bleiben.',
  ],
  acknowledge: {
    comment: ['Danke für deinen Kommentar, ich freue mich über jede Nachricht!', 'Danke, dass du vorbeischaust und das teilst!'],
    dm: ['Danke für deine Nachricht, schön, von dir zu hören!', 'Danke, dass du mir schreibst!'],
  },
};

const pt: ReplyPhrasebook = {
  hello: { casual: ['Oi, {author}!', 'Ei, {author}!'], neutral: ['Olá, {author}!', 'Oi, {author}!'] },
  thanks: ['Fico muito feliz com isso, de verdade!', 'Que amor! Você fez o meu dia.'],
  welcome: ['Por nada, é um prazer!', 'Imagina, que bom que ajudou!'],
  question: [
    'Ótima pergunta! Para mim, em {niche} tudo se resume a passos pequenos e constantes.',
    'Boa pergunta! Em {niche}, o que funciona para mim é manter tudo simples e constante.',
  ],
  acknowledge: {
    comment: ['Adorei seu comentário, valeu!', 'Que bom ver você por aqui!'],
    dm: ['Que bom receber sua mensagem!', 'Valeu por me escrever!'],
  },
};

const it: ReplyPhrasebook = {
  hello: { casual: ['Ciao {author}!', 'Ehi {author}!'], neutral: ['Ciao {author}!', 'Salve {author}!'] },
  thanks: ['Grazie mille, significa tanto per me!', 'Che carino, grazie! Mi hai migliorato la giornata.'],
  welcome: ['Prego, è un piacere!', 'Figurati, sono felice che ti sia utile!'],
  question: [
    'Bella domanda! Per me, nel mondo {niche} tutto si riduce a piccoli passi costanti.',
    'Ottima domanda! Nel mondo {niche}, a me funziona puntare su semplicità e costanza.',
  ],
  acknowledge: {
    comment: ['Grazie del commento, mi fa sempre piacere!', 'Grazie per la condivisione!'],
    dm: ['Grazie per il messaggio, che bello sentirti!', 'Grazie per avermi scritto!'],
  },
};

export const REPLY_PHRASEBOOKS: Readonly<Record<string, ReplyPhrasebook>> = { en, es, fr, de, pt, it };

/** The reply phrasebook of a primary language subtag; English for any language we have no templates for. */
export function replyPhrasebookFor(language: string): ReplyPhrasebook {
  return REPLY_PHRASEBOOKS[language] ?? en;
}

/** What a message does, as far as templates can tell: asks, compliments, thanks, or none of these. */
export interface MessageIntent {
  question: boolean;
  compliment: boolean;
  thanks: boolean;
}

const QUESTION = /[?¿]/u;
const THANKS = /\b(thanks?|thank you|thx|ty|gracias|merci|danke|obrigad[oa]|valeu|grazie)\b/iu;
const COMPLIMENT =
  /\b(love|loving|amazing|beautiful|gorgeous|great|awesome|incredible|stunning|cute|wow|best|perfect|brilliant|inspiring|encanta|precios[oa]|hermos[oa]|incre[ií]ble|magnifique|superbe|g[ée]nial|adore|toll|wunderschön|klasse|lind[oa]|maravilh|incr[ií]vel|bellissim[oa]|stupend|meraviglios)|[❤♥😍🔥👏💕💚🥰😻✨]/iu;

export function intentOf(text: string): MessageIntent {
  return { question: QUESTION.test(text), compliment: COMPLIMENT.test(text), thanks: THANKS.test(text) };
}
