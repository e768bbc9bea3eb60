// goto and labels: forward and backward jumps across nested loops, out of switches, a state
// machine, labels at the end of blocks and declarations between a goto and its label.

// A forward jump out of two nested loops.
int find(global const int *m, int n, int key) {
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            if (m[i * n + j] == key)
                goto found;
    return -1;
found:
    return i * n + j;
}

kernel void search(global const int *m, global const int *keys, global int *out) {
    int g = get_global_id(0);
    out[g] = find(m, 8, keys[g]);
}

// Backward jumps as the loop (Collatz steps), several gotos to one label, a declaration
// jumped over and a variable declared before a goto and assigned after its label.
kernel void backward(global const int *in, global int *out) {
    int g = get_global_id(0);
    int n = in[g], steps = 0;
    goto start;
    int unused = 5;
start:
    unused = 0;
again:
    if (n == 1)
        goto done;
    if (n & 1)
        goto odd;
    int halved = n / 2;
    n = halved;
    steps++;
    goto again;
odd:
    n = 3 * n + 1;
    steps++;
    goto again;
done:
    out[g] = steps + unused;
}

// A goto out of a switch to a label at the end of the loop body (a continue), a goto out of
// the loop past the code after it, a continue inside the switch, a label in a nested block
// and a label right before a closing brace.
kernel void loops(global const int *in, global int *out) {
    int g = get_global_id(0);
    int acc = 0;
    for (int i = 0; i < 16; i++) {
        int v = in[g * 16 + i];
        switch (v & 3) {
        case 0:
            goto next;
        case 1:
            acc += v;
            break;
        case 2:
            if (v > 900)
                goto stop;
            acc -= v;
            break;
        default:
            acc ^= v;
            continue;
        }
        acc += 1;
    next:
        ;
    }
    acc *= 2;
    if (acc > 1000)
        goto bounded;
    acc += 7;
    {
    bounded:
        acc &= 1023;
    }
stop:
    out[g] = acc;
    int k = 0;
    while (1) {
        k += 3;
        if (k > 10)
            goto out;
    }
out:
}

// A state machine written with gotos: counts the numbers and words of each 32-byte slice
// and sums the numbers (each kept below 100000).
kernel void tokens(global const uchar *text, global int *out) {
    int g = get_global_id(0);
    global const uchar *p = text + g * 32;
    int i = 0, numbers = 0, words = 0, sum = 0, value = 0;
    uchar c;
start:
    if (i == 32)
        goto end;
    c = p[i++];
    if (c >= '0' && c <= '9') {
        value = c - '0';
        goto number;
    }
    if (c >= 'a' && c <= 'z')
        goto word;
    goto start;
number:
    if (i == 32)
        goto number_end;
    c = p[i];
    if (c < '0' || c > '9')
        goto number_end;
    value = (value * 10 + (c - '0')) % 100000;
    i++;
    goto number;
number_end:
    numbers++;
    sum += value;
    goto start;
word:
    while (i < 32 && p[i] >= 'a' && p[i] <= 'z')
        i++;
    words++;
    goto start;
end:
    out[3 * g] = numbers;
    out[3 * g + 1] = words;
    out[3 * g + 2] = sum;
}

// Jumps into statements from outside them: into the middle of a loop (the rest of that
// iteration runs, then the loop goes on), into an if branch and into a switch case.
kernel void inward(global const int *in, global int *out) {
    int g = get_global_id(0);
    int v = in[g], acc = 0, i = v & 7;
    if (v & 8)
        goto middle;
    if (v & 16)
        goto in_case;
    for (i = 0; i < 10; i++) {
        acc += i;
    middle:
        acc ^= v;
        if (acc > 5000)
            break;
    }
    if (v & 32)
        goto branch;
    if (v > 500) {
        acc += 1;
    branch:
        acc *= 3;
    } else {
        acc -= 2;
    }
    switch (v & 3) {
    case 0:
        acc += 10;
        break;
    case 1:
    in_case:
        acc += 20;
    case 2:
        acc += 30;
        break;
    default:
        acc = -acc;
    }
    out[g] = acc + i;
}

// Duff's device: case labels inside the do-while of the switch.
void duff_copy(global int *to, global const int *from, int count) {
    int n = (count + 3) / 4;
    switch (count % 4) {
    case 0:
        do {
            *to++ = *from++;
    case 3:
            *to++ = *from++;
    case 2:
            *to++ = *from++;
    case 1:
            *to++ = *from++;
        } while (--n > 0);
    }
}

kernel void duff(global const int *from, global int *to) {
    int g = get_global_id(0);
    duff_copy(to + g * 16, from + g * 16, g % 15 + 1);
}

// A resumable generator in the style of miniz's coroutines: each round leaves through a goto
// out of the switch and resumes at the case label of its state, inside the loops.
kernel void coroutine(global int *out) {
    int g = get_global_id(0);
    int state = 0, i = 0, acc = g, value = 0;
    for (int round = 0; round < 12; round++) {
        switch (state) {
        case 0:
            for (i = 0; i < 5; i++) {
                acc += i * g;
                value = acc;
                state = 1;
                goto yield;
        case 1:;
            }
            while (1) {
                value = -1;
                state = 2;
                goto yield;
        case 2:;
            }
        }
    yield:
        out[g * 12 + round] = value;
    }
}

// A region inside a loop body inside another region: a goto within the body, a continue and
// a break that leave the inner region, and a backward goto out of the loop to the outer one.
kernel void nested(global const int *in, global int *out) {
    int g = get_global_id(0), acc = 0, tries = 0;
restart:
    tries++;
    for (int i = 0; i < 8; i++) {
        int v = in[g * 8 + i] + tries;
        if (v % 5 == 0)
            goto skip;
        if (v % 7 == 0)
            continue;
        if (v % 11 == 0)
            break;
        if (v % 13 == 0 && tries < 3)
            goto restart;
        acc += v;
    skip:
        acc ^= i;
    }
    out[g] = acc * 16 + tries;
}

// A switch whose first statement is a block holding a case label: reached only through it.
kernel void leading_block(global const int *in, global int *out) {
    int g = get_global_id(0), r = 0;
    switch (in[g] & 3) {
        {
        case 1:
            r += 10;
        }
    case 2:
        r += 20;
        break;
    default:
        r = -1;
    }
    out[g] = r;
}
