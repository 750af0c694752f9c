import type { CaptionStyle } from '../../../application/ports/index.js';

/**
 * Caption templates of the local text adapter, per language: two per caption style, calls to
 * action, and evergreen themes for week plans. Placeholders: {topic}, {niche}, {name}.
 */
export interface Phrasebook {
  styles: Record<CaptionStyle, [string, string]>;
  ctas: string[];
  themes: string[];
}

const en: Phrasebook = {
  styles: {
    'story-led': [
      "Here's a little story from my {niche} days: {topic}. It reminded me why I started, and I wanted to share it with you.",
      'Last week taught me something about {topic}. Living and breathing {niche}, this one stuck with me.',
    ],
    'question-led': [
      "Quick question: how do you approach {topic}? I'd love to know what works for you in {niche}.",
      'What would you do differently with {topic}? Tell me below, I read every reply.',
    ],
    'cta-led': [
      'Want more on {topic}? Follow along for daily {niche} ideas you can actually use.',
      'Save this for later: {topic}, the {niche} way. Share it with someone who needs it.',
    ],
    punchy: ['{Topic}. No excuses.', '{Topic}. Pure {niche} energy.'],
  },
  ctas: ['Follow for more.', 'Save this for later.', 'Tell me in the comments.'],
  themes: ['my morning routine', 'a behind-the-scenes moment', 'my favourite tip', 'a small win this week', "what I'm working on now"],
};

const es: Phrasebook = {
  styles: {
    'story-led': [
      'Os cuento una pequeña historia de mi día a día en {niche}: {topic}. Me recordó por qué empecé y quería compartirlo.',
      'La semana pasada aprendí algo sobre {topic}. Viviendo {niche} a tope, esto se me quedó grabado.',
    ],
    'question-led': [
      'Pregunta rápida: ¿cómo afrontas {topic}? Me encantaría saber qué te funciona en {niche}.',
      '¿Qué harías diferente con {topic}? Cuéntamelo abajo, leo todas las respuestas.',
    ],
    'cta-led': [
      '¿Quieres más sobre {topic}? Sígueme para ideas diarias de {niche} que de verdad sirven.',
      'Guarda esto para luego: {topic}, al estilo {niche}. Compártelo con quien lo necesite.',
    ],
    punchy: ['{Topic}. Sin excusas.', '{Topic}. Pura energía {niche}.'],
  },
  ctas: ['Sígueme para más.', 'Guárdalo para después.', 'Cuéntamelo en los comentarios.'],
  themes: ['mi rutina de la mañana', 'un momento entre bastidores', 'mi consejo favorito', 'un pequeño logro de esta semana', 'en lo que estoy trabajando'],
};

const fr: Phrasebook = {
  styles: {
    'story-led': [
      "Petite histoire de mon quotidien {niche} : {topic}. Ça m'a rappelé pourquoi j'ai commencé, alors je vous la partage.",
      "La semaine dernière, j'ai appris quelque chose sur {topic}. Quand on vit {niche} à fond, ce genre de moment reste.",
    ],
    'question-led': [
      "Petite question : comment abordez-vous {topic} ? J'ai hâte de savoir ce qui marche pour vous en {niche}.",
      'Que feriez-vous différemment avec {topic} ? Dites-le-moi en commentaire, je lis tout.',
    ],
    'cta-led': [
      "Envie d'en savoir plus sur {topic} ? Abonnez-vous pour des idées {niche} au quotidien.",
      "Enregistrez ce post : {topic}, version {niche}. Partagez-le à quelqu'un qui en a besoin.",
    ],
    punchy: ['{Topic}. Zéro excuse.', "{Topic}. De l'énergie {niche} à l'état pur."],
  },
  ctas: ['Abonnez-vous pour la suite.', 'Enregistrez ce post.', 'Dites-le-moi en commentaire.'],
  themes: ['ma routine du matin', 'un moment en coulisses', 'mon conseil préféré', 'une petite victoire de la semaine', 'ce sur quoi je travaille'],
};

const de: Phrasebook = {
  styles: {
    'story-led': [
      'Eine kleine Geschichte aus meinem {niche}-Alltag: {topic}. Sie hat mich daran erinnert, warum ich angefangen habe.',
      'Letzte Woche habe ich etwas über {topic} gelernt. Wer {niche} lebt, vergisst so etwas nicht.',
    ],
    'question-led': [
      'Kurze Frage: Wie gehst du an {topic} heran? Ich bin gespannt, was für dich bei {niche} funktioniert.',
      'Was würdest du bei {topic} anders machen? Schreib es mir in die Kommentare, ich lese alles.',
    ],
    'cta-led': [
      'Mehr zu {topic}? Folge mir für tägliche {niche}-Ideen, die wirklich helfen.',
      'Speicher dir das: {topic}, auf die {niche}-Art. Teile es mit jemandem, der es braucht.',
    ],
    punchy: ['{Topic}. Keine Ausreden.', '{Topic}. Pure {niche}-Energie.'],
  },
  ctas: ['Folge mir für mehr.', 'Speicher dir den Beitrag.', 'Schreib es in die Kommentare.'],
  themes: ['meine Morgenroutine', 'ein Blick hinter die Kulissen', 'mein Lieblingstipp', 'ein kleiner Erfolg dieser Woche', 'woran ich gerade arbeite'],
};

const pt: Phrasebook = {
  styles: {
    'story-led': [
      'Uma pequena história do meu dia a dia em {niche}: {topic}. Me lembrou por que comecei, e quis compartilhar com vocês.',
      'Na semana passada aprendi algo sobre {topic}. Para quem vive {niche} intensamente, isso marca.',
    ],
    'question-led': [
      'Pergunta rápida: como você lida com {topic}? Quero saber o que funciona para você em {niche}.',
      'O que você faria diferente com {topic}? Conta aqui embaixo, eu leio todas as respostas.',
    ],
    'cta-led': [
      'Quer mais sobre {topic}? Me segue para ideias diárias de {niche} que funcionam de verdade.',
      'Salva este post: {topic}, do jeito {niche}. Compartilha com quem precisa.',
    ],
    punchy: ['{Topic}. Sem desculpas.', '{Topic}. Pura energia {niche}.'],
  },
  ctas: ['Me segue para mais.', 'Salva para depois.', 'Conta nos comentários.'],
  themes: ['minha rotina da manhã', 'um momento de bastidores', 'minha dica favorita', 'uma pequena vitória desta semana', 'no que estou trabalhando agora'],
};

const it: Phrasebook = {
  styles: {
    'story-led': [
      'Una piccola storia dalla mia vita {niche}: {topic}. Mi ha ricordato perché ho iniziato e volevo condividerla con voi.',
      'La settimana scorsa ho imparato qualcosa su {topic}. Quando vivi {niche} ogni giorno, certe cose restano.',
    ],
    'question-led': [
      'Domanda veloce: come affronti {topic}? Voglio sapere cosa funziona per te nel mondo {niche}.',
      'Cosa faresti di diverso con {topic}? Scrivimelo qui sotto, leggo tutte le risposte.',
    ],
    'cta-led': [
      'Vuoi saperne di più su {topic}? Seguimi per idee {niche} quotidiane che funzionano davvero.',
      'Salva questo post: {topic}, in stile {niche}. Condividilo con chi ne ha bisogno.',
    ],
    punchy: ['{Topic}. Niente scuse.', '{Topic}. Pura energia {niche}.'],
  },
  ctas: ['Seguimi per altri contenuti.', 'Salva il post per dopo.', 'Dimmelo nei commenti.'],
  themes: ['la mia routine del mattino', 'un momento dietro le quinte', 'il mio consiglio preferito', 'una piccola vittoria di questa settimana', 'ciò a cui sto lavorando'],
};

export const PHRASEBOOKS: Readonly<Record<string, Phrasebook>> = { en, es, fr, de, pt, it };

/** The phrasebook of a primary language subtag; English for any language we have no templates for. */
export function phrasebookFor(language: string): Phrasebook {
  return PHRASEBOOKS[language] ?? en;
}

/** Fills a template; `{Topic}` is the topic with its first letter capitalised, to open a sentence. */
export function fill(template: string, values: { topic: string; niche: string; name: string }): string {
  const opening = values.topic.charAt(0).toLocaleUpperCase() + values.topic.slice(1);
  return template.replaceAll('{Topic}', opening).replaceAll('{topic}', values.topic).replaceAll('{niche}', values.niche).replaceAll('{name}', values.name);
}
