/* rules.c - the short rules summary of each game (`rules` command and
 * `agon rules GAME`). Condensed from shared/rules/ and docs/games/: enough
 * for someone who has never seen the game to start, with the notation. The
 * rules core stays the authority; Tab shows the legal moves.
 */
#include <string.h>

#include "view.h"

static const struct {
  const char *game, *text;
} summaries[] = {
    {"gambit-of-kings",
     "Gambit of Kings: 10x10, Light (UPPER case, ranks 1-2) vs Dark (lower).\n"
     "Win by moving any piece onto the enemy Castle (C). Castles never move.\n"
     "S Soldier: 1 step sideways or forward, or 2 forward onto empty squares.\n"
     "E Elf: 1-2 squares diagonally.  K Knight: slides 1-3 in any direction.\n"
     "L Lion: 1 orthogonal step, then 0-2 diagonal steps bending the same way.\n"
     "G Griffin: 1-3 orthogonally, flying over anything but a Giant.\n"
     "T Giant: slides 1-3 forward, forward-diagonally or sideways; no lesser\n"
     "  piece (Soldier, Elf) can take it.  P Paladin: slides like a queen.\n"
     "Capture by moving onto an enemy (never compulsory). A Soldier that takes\n"
     "a greater piece or reaches the far rank becomes a Knight (+K), capped.\n"
     "No legal move: you lose. Moves: e2-e4, d5xe5, c9-c10=K."},
    {"gwezboell",
     "Gwezboell: 9x9 tafl. Defenders: King K on the throne e5 and 8 guards D;\n"
     "attackers: 16 a. Defenders move first.\n"
     "Every piece slides any distance along a rank or file, like a rook.\n"
     "Only the King may stop on the throne [+] or a corner [#].\n"
     "Capture: sandwich an enemy between the piece you moved and another of\n"
     "yours (on a line). The King is taken when framed on all four sides by\n"
     "attackers (or attackers and the throne).\n"
     "King reaches a corner: defenders win. King captured: attackers win.\n"
     "No legal move: you lose. Moves: e3-c3 (captures and ++/-- are added)."},
    {"gomony",
     "Gomony: 8x8 stacking draughts (Lasca family) on the dark squares.\n"
     "White (ranks 1-3) moves first. A column is owned by its top marker.\n"
     "Step one square diagonally forward; promoted (W/B) columns also back.\n"
     "Jump an adjacent enemy-topped column onto the empty square beyond: you\n"
     "take only its top marker and put it at the BOTTOM of your column.\n"
     "Jumping is compulsory, and a multi-jump must be continued.\n"
     "Reaching the far row promotes the top marker and ends the move.\n"
     "A side that owns no column loses; stalemate is a draw by default.\n"
     "Moves: c3-d4, jumps as the full path c1xe3xg5. Stacks list top first."},
    {"gambo-2023",
     "Gambo (2023): 9 animals each: Elephant, Cat, Mouse, strengths 1-3.\n"
     "E beats C, C beats M, M beats E; same species: higher strength wins;\n"
     "equal: the attacker wins. Each home column faces one Line square.\n"
     "First a player chooses a side; the other one acts first. Actions:\n"
     "  advance x     move your piece of column x onto its Line square\n"
     "  permute x y   swap two of your pieces (not right after the opponent's)\n"
     "  duel x y      your Line piece x attacks his Line piece y (nothing\n"
     "                between them); winner scores strength x strength, both go\n"
     "  pass          only when nothing else is legal\n"
     "After the first duel the player behind on points holds the hand and\n"
     "keeps playing until he leads. After 9 duels the higher total wins\n"
     "(+4 for the last duel's winner)."},
    {"gambo-2019",
     "Gambo (2019): 9 animals each: Elephant, Cat, Mouse, strengths 1-3.\n"
     "E beats C, C beats M, M beats E; same species: higher strength wins;\n"
     "equal: the attacker wins. A player chooses a side; the other starts.\n"
     "The initiative holder acts:\n"
     "  engage x      put your piece of column x on its Line square\n"
     "  permute x y   swap two available pieces (never in reply to one)\n"
     "The opponent answers at once with  respond y  using the nearest\n"
     "available piece left or right of the engaged one: the duel is fought,\n"
     "the loser becomes a prisoner, the winner is withdrawn (lower case)\n"
     "until the series ends. Lose all your pieces and you lose the game."},
};

const char *view_rules(const char *game_name) {
  for (size_t i = 0; i < sizeof summaries / sizeof summaries[0]; i++)
    if (!strcmp(summaries[i].game, game_name)) return summaries[i].text;
  return NULL;
}
