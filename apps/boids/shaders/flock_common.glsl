// flock_common.glsl: what every simulation kernel shares: the boid layout, the
// push constants (mirrored by flock_push in flock.h), the flat workgroup index
// of a possibly 2-D dispatch, the neighbour test and Reynolds' rules.
//
// The three neighbour searches differ only in which candidates they visit; they
// all call is_neighbour(), accumulate() and steer() below, so a search that
// visits every true neighbour produces the same flock as the brute-force one,
// up to the order in which floats are summed.

layout(local_size_x_id = 0) in;

// position.w: the boid's noise phase, fixed at birth. velocity.xyz: unit
// heading; velocity.w: the speed of the last step.
struct Boid {
    vec4 position;
    vec4 velocity;
};

layout(push_constant) uniform FlockParams {
    vec3 target;            float dt;
    vec3 station;           float radius;
    vec3 grid_origin;       float cell_size;
    uvec3 grid_dims;        uint count;
    float time;             float speed;             float speed_variation;   float rotation_rate;
    float separation_weight; float alignment_weight; float cohesion_weight;   float target_weight;
    float station_margin;   uint debug;              uint step;               uint unused;
} params;

// Invocation index over a dispatch that may be split into rows of
// gl_NumWorkGroups.x groups when one dimension's group limit is too small.
uint flat_invocation_index()
{
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    return group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}

// The neighbour relation. `precise` stops the compiler from fusing the
// arithmetic differently in different kernels, so brute, station and grid agree
// bit for bit on which pairs are neighbours. (self - other) and (other - self)
// differ only in sign, so the relation is symmetric.
bool is_neighbour(vec3 self, vec3 other)
{
    precise vec3 difference = self - other;
    precise float distance_squared = dot(difference, difference);
    precise float radius_squared = params.radius * params.radius;
    return distance_squared < radius_squared;
}

// A 32-bit mix (lowbias32 by Chris Wellons) to turn a neighbour's id into
// well-spread bits for the neighbour-set fingerprint.
uint hash_u32(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

struct Accumulator {
    vec3 separation;
    vec3 alignment;
    vec3 cohesion;
    uint neighbour_count;
    uint id_hash_sum;   // wraps; with the xor and the count it fingerprints the set
    uint id_hash_xor;
};

Accumulator accumulator_start()
{
    return Accumulator(vec3(0.0), vec3(0.0), vec3(0.0), 0u, 0u, 0u);
}

// Separation pushes away harder the closer the neighbour; the epsilon keeps two
// boids on the same spot from dividing by zero (their difference is zero, so
// they simply add no push).
void accumulate(inout Accumulator acc, vec3 self_position, Boid other, uint other_id)
{
    vec3 away = self_position - other.position.xyz;
    float distance_between = length(away);
    float closeness = clamp(1.0 - distance_between / params.radius, 0.0, 1.0);
    acc.separation += away * (closeness / max(distance_between, 1e-5 * params.radius));
    acc.alignment += other.velocity.xyz;
    acc.cohesion += other.position.xyz;
    acc.neighbour_count += 1u;
    uint h = hash_u32(other_id);
    acc.id_hash_sum += h;
    acc.id_hash_xor ^= h;
}

vec3 normalize_or(vec3 v, vec3 fallback)
{
    float len = length(v);
    return len > 1e-12 ? v / len : fallback;
}

// Smooth 1-D value noise in [-1, 1], a function of time and the boid's phase
// only, so a run is reproducible.
float speed_noise(float x)
{
    float cell = floor(x);
    float f = x - cell;
    uint a = hash_u32(uint(int(cell)) * 0x9e3779b9u);
    uint b = hash_u32(uint(int(cell) + 1) * 0x9e3779b9u);
    float va = float(a >> 8) * (2.0 / 16777215.0) - 1.0;
    float vb = float(b >> 8) * (2.0 / 16777215.0) - 1.0;
    return mix(va, vb, f * f * (3.0 - 2.0 * f));
}

// Reynolds' rules as in the keijiro/Shinao flock: the target counts as one
// extra member of the neighbourhood for cohesion (and the boid itself as one
// for the averages), the heading follows the wanted direction with exponential
// smoothing exp(-rate * dt), and the speed carries per-boid noise. A separate
// small pull toward the target keeps large flocks from drifting apart.
Boid steer(Boid self, Accumulator acc)
{
    vec3 position = self.position.xyz;
    vec3 heading = self.velocity.xyz;
    float members = float(acc.neighbour_count + 1u);
    vec3 alignment = acc.alignment / members;
    vec3 cohesion = normalize_or((acc.cohesion + params.target) / members - position, vec3(0.0));
    vec3 to_target = normalize_or(params.target - position, vec3(0.0));
    vec3 wanted = params.separation_weight * acc.separation + params.alignment_weight * alignment +
                  params.cohesion_weight * cohesion + params.target_weight * to_target;
    float keep = exp(-params.rotation_rate * params.dt);
    vec3 new_heading = normalize_or(mix(wanted, heading, keep), heading);
    float noise = speed_noise(params.time * 0.7 + self.position.w);
    float speed = params.speed * (1.0 + noise * params.speed_variation);
    Boid next;
    next.position = vec4(position + new_heading * (speed * params.dt), self.position.w);
    next.velocity = vec4(new_heading, speed);
    return next;
}

uvec4 neighbour_fingerprint(Accumulator acc)
{
    return uvec4(acc.neighbour_count, acc.id_hash_sum, acc.id_hash_xor, 0u);
}
