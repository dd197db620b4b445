/*
 * play_input: what a line typed at the play prompt asks for (play.h:
 * play_classify() and its helpers). Pure functions of the text, apart from
 * the loop so they are tested alone: command words in any case with
 * blanks collapsed, anything else that looks like RULES.md move text is a
 * move for the server to judge.
 */
#include <ctype.h>
#include <string.h>

#include "play.h"

bool play_looks_like_move(const char *text)
{
    while (isspace((unsigned char)*text))
        text++;
    if (!isalpha((unsigned char)text[0]) || !isdigit((unsigned char)text[1]))
        return false;
    for (; *text; text++) {
        unsigned char ch = (unsigned char)*text;
        if (!isalnum(ch) && ch != '-' && !isspace(ch))
            return false;
    }
    return true;
}

bool play_is_move_text(const char *text)
{
    char m[64];
    play_normalize_move(text, m, sizeof m);
    const char *s = m;
    int points = 0;
    for (;;) {
        if (!islower((unsigned char)*s) || !isdigit((unsigned char)s[1]))
            return false;
        s++;
        while (isdigit((unsigned char)*s))
            s++;
        points++;
        if (*s == '\0')
            return points >= 2;
        if (*s != '-' && *s != 'x')
            return false;
        s++;
    }
}

/* Letters, digits and '-' only (blanks aside), with a letter and a digit:
 * someone trying to type a move. */
static bool tries_move(const char *text)
{
    bool digit = false, letter = false;
    for (; *text; text++) {
        unsigned char ch = (unsigned char)*text;
        if (isspace(ch))
            continue;
        if (isdigit(ch))
            digit = true;
        else if (isalpha(ch))
            letter = true;
        else if (ch != '-')
            return false;
    }
    return digit && letter;
}

void play_normalize_move(const char *text, char *move, size_t n)
{
    size_t k = 0;
    for (; *text && n > 0 && k < n - 1; text++)
        if (!isspace((unsigned char)*text))
            move[k++] = (char)tolower((unsigned char)*text);
    if (n > 0)
        move[k] = '\0';
}

play_input play_classify(const char *line, char *move, size_t n)
{
    /* The words, lowercased, blanks collapsed: "Draw  Accept" is
     * "draw accept". */
    char norm[64];
    size_t len = 0;
    bool blank = false, long_line = false;
    for (const char *q = line; *q; q++) {
        if (isspace((unsigned char)*q)) {
            blank = len > 0;
            continue;
        }
        if (len + 2 >= sizeof norm) {
            long_line = true;
            break;
        }
        if (blank)
            norm[len++] = ' ';
        blank = false;
        norm[len++] = (char)tolower((unsigned char)*q);
    }
    norm[len] = '\0';
    if (len == 0)
        return PLAY_IN_EMPTY;
    static const struct {
        const char *word;
        play_input in;
    } words[] = {
        {"quit", PLAY_IN_QUIT},
        {"exit", PLAY_IN_QUIT},
        {"q", PLAY_IN_QUIT},
        {"help", PLAY_IN_HELP},
        {"?", PLAY_IN_HELP},
        {"resign", PLAY_IN_RESIGN},
        {"board", PLAY_IN_BOARD},
        {"show", PLAY_IN_BOARD},
        {"moves", PLAY_IN_MOVES},
        {"draw", PLAY_IN_DRAW_OFFER},
        {"draw offer", PLAY_IN_DRAW_OFFER},
        {"draw accept", PLAY_IN_DRAW_ACCEPT},
        {"draw decline", PLAY_IN_DRAW_DECLINE},
        {"hint", PLAY_IN_HINT},
        {"abort", PLAY_IN_ABORT},
    };
    if (!long_line)
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strcmp(norm, words[i].word) == 0)
                return words[i].in;
    if (!long_line && play_looks_like_move(line) && play_is_move_text(line)) {
        play_normalize_move(line, move, n);
        return PLAY_IN_MOVE;
    }
    if (!long_line && tries_move(line)) {
        play_normalize_move(line, move, n);
        return PLAY_IN_BAD_MOVE;
    }
    return PLAY_IN_UNKNOWN;
}
