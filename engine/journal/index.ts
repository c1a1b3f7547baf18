export { JournalRing, type JournalEntry, type JournalPage } from './journal-ring.js';
